//! Code typify does not write, from the same schema set: `RpcErrorCode` as a
//! real enum over its integers (typify would make a validated newtype of an
//! integer enum), tolerant empty structs, the envelope and its tagged bodies
//! with a variant for names this version does not know (typify's serde enums
//! refuse an unknown tag), and constant tables of the schemas' annotations,
//! all taken from the model (the bundle gives only typify's shape names). What is written here is data — types, tables, variant lists;
//! the code that acts on it is hand-written in `proto::wire`.

use anyhow::{bail, Context};
use contract::{DocKind, SchemaSet};
use heck::ToPascalCase;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;

use super::bundle::Bundle;
use super::model::{Call, Def, Event, Model, Named};

pub struct Tables {
    pub tokens: TokenStream,
    /// Types typify must refer to instead of generating: their names, and the
    /// paths of what is written here or hand-written in `proto::wire`.
    pub replaced: Vec<(String, String)>,
}

/// Where the hand-written wire code lives, as the generated files name it.
/// `crate::wire` is `proto::wire` in proto, and a re-export of it wherever
/// frozen bindings are compiled.
const WIRE: &str = "crate::wire";

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The variant name typify gives a string value (it uses heck too, and
/// writes `Self_` for the one keyword a PascalCase name can be).
/// `lint.snake_case` keeps values apart in PascalCase, where typify would
/// otherwise rename one.
fn variant(value: &str) -> Ident {
    match value.to_pascal_case().as_str() {
        "Self" => ident("Self_"),
        name => ident(name),
    }
}

/// A type's comment: its description and the version that brought it.
fn doc_of(description: &str, since: &str) -> String {
    format!("{description}\n\nSince contract {since}.")
}

pub fn tables(set: &SchemaSet, model: &Model, bundle: &Bundle) -> anyhow::Result<Tables> {
    let mut tokens = quote! {
        use super::types::*;
    };
    let mut replaced = Vec::new();

    tokens.extend(rpc_error_code(model)?);
    tokens.extend(protocol_version(model));

    // Library code (`SecretString`, `ProtocolVersion`, `present_or_null`, the
    // decoder) is hand-written in `proto::wire`; the types refer to it there.
    for name in ["ProtocolVersion", super::bundle::SECRET_TYPE] {
        replaced.push((name.to_string(), format!("{WIRE}::{name}")));
    }
    for (name, description) in &bundle.empty_objects {
        let name_ident = ident(name);
        tokens.extend(quote! {
            #[doc = #description]
            ///
            /// Empty today; a reader ignores fields a later minor version adds.
            #[derive(Clone, Debug, Default, PartialEq, Eq, ::serde::Deserialize, ::serde::Serialize)]
            pub struct #name_ident {}
        });
        replaced.push((name.clone(), format!("super::tables::{name}")));
    }

    // In the order of the files, as typify writes the types.
    for doc in set.of_kind(DocKind::Type) {
        let Some(Named {
            def: Def::StringEnum(values),
            http_carriers,
            ..
        }) = model.get(&doc.name)
        else {
            continue;
        };
        let name = ident(&doc.name);
        let all = values.iter().map(|value| variant(value));
        let count = values.len();
        let mut extra = TokenStream::new();
        if !http_carriers.is_empty() {
            let carriers = http_carriers.iter().map(|value| variant(value));
            extra = quote! {
                /// The values that come from an HTTP answer, whose TaskError
                /// carries `httpStatus` (the schema's `x-carriesHttpStatus`).
                pub const CARRIES_HTTP_STATUS: &'static [#name] = &[#(#name::#carriers),*];

                /// Whether a TaskError with this code carries `httpStatus`.
                pub fn carries_http_status(self) -> bool {
                    Self::CARRIES_HTTP_STATUS.contains(&self)
                }
            };
        }
        tokens.extend(quote! {
            impl #name {
                /// Every value, in the schema's (wire) order.
                pub const ALL: [#name; #count] = [#(#name::#all),*];
                #extra
            }
        });
    }

    tokens.extend(method_table(set, model, bundle)?);
    tokens.extend(event_table(model));
    tokens.extend(reserialize(bundle)?);
    tokens.extend(envelope(model)?);
    tokens.extend(body(set, model, bundle, Body::Call)?);
    tokens.extend(body(set, model, bundle, Body::Reply)?);
    tokens.extend(body(set, model, bundle, Body::Event)?);
    for name in std::iter::once("RpcErrorCode").chain(super::model::ENVELOPE_PARTS) {
        replaced.push((name.to_string(), format!("super::tables::{name}")));
    }
    Ok(Tables { tokens, replaced })
}

fn rpc_error_code(model: &Model) -> anyhow::Result<TokenStream> {
    let Some(Named {
        def: Def::IntEnum(values),
        description,
        since,
        ..
    }) = model.get("RpcErrorCode")
    else {
        bail!(
            "types/RpcErrorCode.json: an `enum` of integers named by `x-enum-varnames` is needed"
        );
    };
    let (codes, names): (Vec<i64>, Vec<&str>) = values
        .iter()
        .map(|(code, name)| (*code, name.as_str()))
        .unzip();
    let description = doc_of(description, since);
    let variants: Vec<Ident> = names.iter().map(|name| variant(name)).collect();
    let count = codes.len();
    Ok(quote! {
        #[doc = #description]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i64)]
        #[non_exhaustive]
        pub enum RpcErrorCode {
            #(#[doc = #names] #variants = #codes,)*
        }

        impl RpcErrorCode {
            /// Every code, in the schema's order.
            pub const ALL: [RpcErrorCode; #count] = [#(RpcErrorCode::#variants),*];

            /// The integer on the wire.
            pub const fn code(self) -> i64 {
                self as i64
            }

            /// The contract's name for the code.
            pub const fn name(self) -> &'static str {
                match self {
                    #(RpcErrorCode::#variants => #names,)*
                }
            }

            /// The code with this integer, if the contract has one.
            pub fn from_code(code: i64) -> Option<Self> {
                <Self as crate::wire::CodeEnum>::from_code(code)
            }
        }

        impl crate::wire::CodeEnum for RpcErrorCode {
            const ALL: &'static [Self] = &Self::ALL;
            const TYPE_NAME: &'static str = "RpcErrorCode";
            fn code(self) -> i64 {
                Self::code(self)
            }
            fn name(self) -> &'static str {
                Self::name(self)
            }
        }

        impl ::std::fmt::Display for RpcErrorCode {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for RpcErrorCode {
            type Err = ::std::string::String;
            // Not `Self::Err`: a code may be named `err`, and its variant
            // would make that path ambiguous.
            fn from_str(name: &str) -> ::std::result::Result<Self, ::std::string::String> {
                crate::wire::parse_code(name)
            }
        }

        impl ::serde::Serialize for RpcErrorCode {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                crate::wire::serialize_code(*self, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for RpcErrorCode {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                crate::wire::deserialize_code(deserializer)
            }
        }
    })
}

fn protocol_version(model: &Model) -> TokenStream {
    let version = model.protocol_version;
    quote! {
        /// The envelope format's version, read from `envelope/ProtocolVersion.json`.
        pub const PROTOCOL_VERSION: u64 = #version;
    }
}

fn method_table(set: &SchemaSet, model: &Model, bundle: &Bundle) -> anyhow::Result<TokenStream> {
    let mut entries = Vec::new();
    for call in &model.calls {
        let Call {
            method: name,
            summary,
            since,
            spawns_process: spawns,
            ..
        } = call;
        let transports = call.transports.iter().map(|t| variant(t));
        let errors = call.errors.iter().map(|e| variant(e));
        // typify's names for the shapes, which only the bundle knows.
        let doc = set
            .get(DocKind::Method, name)
            .with_context(|| format!("CallBody names {name}, which has no file"))?;
        let params = bundle.shape_name(doc, "params")?;
        let result = bundle.shape_name(doc, "result")?;
        entries.push(quote! {
            crate::wire::MethodInfo {
                name: #name,
                summary: #summary,
                transports: &[#(super::types::Transport::#transports),*],
                errors: &[#(RpcErrorCode::#errors),*],
                since: #since,
                spawns_process: #spawns,
                params_type: #params,
                result_type: #result,
            }
        });
    }
    Ok(quote! {
        /// Every method, in the order the envelope lists them.
        pub const METHODS: &[crate::wire::MethodInfo<super::types::Transport, RpcErrorCode>] = &[#(#entries),*];
    })
}

fn event_table(model: &Model) -> TokenStream {
    let entries = model.events.iter().map(
        |Event {
             name,
             summary,
             since,
             ..
         }| {
            quote! { crate::wire::EventInfo { name: #name, summary: #summary, since: #since } }
        },
    );
    quote! {
        /// Every event, in the order the envelope lists them.
        pub const EVENTS: &[crate::wire::EventInfo] = &[#(#entries),*];
    }
}

/// The kinds of envelope this generator writes, as `envelope/Envelope.json`
/// must list them. The envelope's shape is the protocol (version 1): a
/// change to it is a new protocol version, not a schema edit, so the
/// generator refuses a schema that differs rather than guess.
const ENVELOPE_KINDS: [&str; 4] = ["call", "reply", "error", "event"];

fn envelope(model: &Model) -> anyhow::Result<TokenStream> {
    let part = model
        .parts
        .get("Envelope")
        .context("envelope/Envelope.json is missing")?;
    let kinds: Vec<&str> = part
        .branches
        .iter()
        .map(|branch| branch.tag.as_str())
        .collect();
    if kinds != ENVELOPE_KINDS {
        bail!(
            "envelope/Envelope.json lists the kinds {kinds:?}; protocol version 1 has exactly {ENVELOPE_KINDS:?}"
        );
    }
    let described = |index: usize, field: &str| -> String {
        part.branches
            .get(index)
            .and_then(|branch| branch.members.get(field))
            .cloned()
            // The kinds were checked above: every index is there.
            .unwrap_or_default()
    };
    let variant_doc = |index: usize| -> String {
        part.branches
            .get(index)
            .map(|branch| branch.description.clone())
            // As above.
            .unwrap_or_default()
    };
    let description = doc_of(&part.description, &part.since);
    let (call, reply, error, event) = (
        variant_doc(0),
        variant_doc(1),
        variant_doc(2),
        variant_doc(3),
    );
    let (call_body, call_id) = (described(0, "body"), described(0, "id"));
    let (reply_body, reply_id) = (described(1, "body"), described(1, "id"));
    let (error_body, error_id) = (described(2, "body"), described(2, "id"));
    let event_body = described(3, "body");
    let version = described(0, "v");
    Ok(quote! {
        #[doc = #description]
        #[derive(Clone, Debug, PartialEq, ::serde::Serialize)]
        #[serde(tag = "kind")]
        pub enum Envelope {
            #[doc = #call]
            #[serde(rename = "call")]
            Call {
                #[doc = #call_body]
                body: CallBody,
                #[doc = #call_id]
                id: RequestId,
                #[doc = #version]
                v: crate::wire::ProtocolVersion,
            },
            #[doc = #reply]
            #[serde(rename = "reply")]
            Reply {
                #[doc = #reply_body]
                body: ReplyBody,
                #[doc = #reply_id]
                id: RequestId,
                #[doc = #version]
                v: crate::wire::ProtocolVersion,
            },
            #[doc = #error]
            #[serde(rename = "error")]
            Error {
                #[doc = #error_body]
                body: RpcError,
                #[doc = #error_id]
                id: ::std::option::Option<u64>,
                #[doc = #version]
                v: crate::wire::ProtocolVersion,
            },
            #[doc = #event]
            #[serde(rename = "event")]
            Event {
                #[doc = #event_body]
                body: EventBody,
                #[doc = #version]
                v: crate::wire::ProtocolVersion,
            },
        }

        impl crate::wire::EnvelopeParts for Envelope {
            type Call = CallBody;
            type Reply = ReplyBody;
            type Error = RpcError;
            type Event = EventBody;
            fn call(id: u64, body: CallBody) -> Self {
                Envelope::Call { body, id: RequestId(id), v: crate::wire::ProtocolVersion }
            }
            fn reply(id: u64, body: ReplyBody) -> Self {
                Envelope::Reply { body, id: RequestId(id), v: crate::wire::ProtocolVersion }
            }
            fn error(id: ::std::option::Option<u64>, body: RpcError) -> Self {
                Envelope::Error { body, id, v: crate::wire::ProtocolVersion }
            }
            fn event(body: EventBody) -> Self {
                Envelope::Event { body, v: crate::wire::ProtocolVersion }
            }
            fn kind(&self) -> crate::wire::EnvelopeKind {
                match self {
                    Envelope::Call { .. } => crate::wire::EnvelopeKind::Call,
                    Envelope::Reply { .. } => crate::wire::EnvelopeKind::Reply,
                    Envelope::Error { .. } => crate::wire::EnvelopeKind::Error,
                    Envelope::Event { .. } => crate::wire::EnvelopeKind::Event,
                }
            }
            fn unknown(&self) -> ::std::option::Option<&crate::wire::Unknown> {
                match self {
                    Envelope::Call { body, .. } => crate::wire::Tagged::unknown(body),
                    Envelope::Reply { body, .. } => crate::wire::Tagged::unknown(body),
                    Envelope::Error { .. } => ::std::option::Option::None,
                    Envelope::Event { body, .. } => crate::wire::Tagged::unknown(body),
                }
            }
        }

        impl<'de> ::serde::Deserialize<'de> for Envelope {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                crate::wire::deserialize_envelope(deserializer)
            }
        }
    })
}

/// The three tagged bodies of an envelope.
#[derive(Clone, Copy)]
pub enum Body {
    Call,
    Reply,
    Event,
}

fn body(
    set: &SchemaSet,
    model: &Model,
    bundle: &Bundle,
    which: Body,
) -> anyhow::Result<TokenStream> {
    let (type_name, tag, kind, shape, part) = match which {
        Body::Call => (
            "CallBody",
            "method",
            DocKind::Method,
            "params",
            quote!(Call),
        ),
        Body::Reply => (
            "ReplyBody",
            "method",
            DocKind::Method,
            "result",
            quote!(Reply),
        ),
        Body::Event => ("EventBody", "name", DocKind::Event, "params", quote!(Event)),
    };
    let text = model
        .parts
        .get(type_name)
        .with_context(|| format!("envelope/{type_name}.json is missing"))?;
    let description = doc_of(&text.description, &text.since);
    let branch_docs: Vec<&str> = text
        .branches
        .iter()
        .map(|branch| branch.description.as_str())
        .collect();
    let names: Vec<&str> = text
        .branches
        .iter()
        .map(|branch| branch.tag.as_str())
        .collect();
    let mut variants = Vec::new();
    let mut contents = Vec::new();
    for &name in &names {
        // typify's names for the shapes, which only the bundle knows.
        let doc = set
            .get(kind, name)
            .with_context(|| format!("{type_name} names {name}, which has no file"))?;
        variants.push(variant(name));
        contents.push(ident(bundle.shape_name(doc, shape)?));
    }
    let me = ident(type_name);
    let unknown_doc = format!(
        "A {tag} this version of the contract does not know (a newer peer's), with its {} as they arrived. Never a known {tag} whose {} do not fit: that is a decode error.",
        shape, shape
    );
    Ok(quote! {
        #[doc = #description]
        #[derive(Clone, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum #me {
            #(#[doc = #branch_docs] #variants(#contents),)*
            #[doc = #unknown_doc]
            Unknown(crate::wire::Unknown),
        }

        impl crate::wire::Tagged for #me {
            const PART: crate::wire::BodyPart = crate::wire::BodyPart::#part;
            fn decode_known(name: &str, content: &str) -> ::std::option::Option<::std::result::Result<Self, ::serde_json::Error>> {
                Self::decode_content(name, crate::wire::Content::of_text(content))
            }
            fn decode_content(name: &str, content: crate::wire::Content<'_>) -> ::std::option::Option<::std::result::Result<Self, ::serde_json::Error>> {
                ::std::option::Option::Some(match name {
                    #(#names => content.read().map(#me::#variants),)*
                    _ => return ::std::option::Option::None,
                })
            }
            fn from_unknown(unknown: crate::wire::Unknown) -> Self {
                #me::Unknown(unknown)
            }
            fn wire_name(&self) -> &str {
                match self {
                    #(#me::#variants(_) => #names,)*
                    #me::Unknown(unknown) => unknown.name(),
                }
            }
            fn unknown(&self) -> ::std::option::Option<&crate::wire::Unknown> {
                match self {
                    #me::Unknown(unknown) => ::std::option::Option::Some(unknown),
                    _ => ::std::option::Option::None,
                }
            }
            fn serialize_content<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                match self {
                    #(#me::#variants(content) => ::serde::Serialize::serialize(content, serializer),)*
                    #me::Unknown(unknown) => ::serde::Serialize::serialize(unknown.content(), serializer),
                }
            }
        }

        impl ::serde::Serialize for #me {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                crate::wire::serialize_body(self, serializer)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for #me {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                crate::wire::deserialize_body(deserializer)
            }
        }

        #(
            impl ::std::convert::From<#contents> for #me {
                fn from(value: #contents) -> Self {
                    #me::#variants(value)
                }
            }
        )*
    })
}

/// A way to read any named type from JSON and write it back, by name, so a
/// checker can ask the generated types for their own verdict on a value.
fn reserialize(bundle: &Bundle) -> anyhow::Result<TokenStream> {
    let names: Vec<&String> = bundle.defined_names().collect();
    let mut types = Vec::new();
    for name in &names {
        // Hand-written types are named by their path in `proto::wire`.
        let path =
            if name.as_str() == "ProtocolVersion" || name.as_str() == super::bundle::SECRET_TYPE {
                format!("{WIRE}::{name}")
            } else {
                name.to_string()
            };
        let path: syn::Path =
            syn::parse_str(&path).with_context(|| format!("{path} is not a Rust path"))?;
        types.push(path);
    }
    Ok(quote! {
        /// The name of every generated type, sorted.
        pub const TYPE_NAMES: &[&str] = &[#(#names),*];

        /// Reads `value` as the generated type called `type_name` and writes it
        /// back; `None` when there is no such type. A tolerant reader may
        /// accept what the schema refuses, and may drop what it does not know.
        pub fn reserialize(
            type_name: &str,
            value: &::serde_json::Value,
        ) -> Option<::std::result::Result<::serde_json::Value, ::serde_json::Error>> {
            fn again<T: ::serde::de::DeserializeOwned + ::serde::Serialize>(
                value: &::serde_json::Value,
            ) -> ::std::result::Result<::serde_json::Value, ::serde_json::Error> {
                let typed: T = ::serde_json::from_value(value.clone())?;
                ::serde_json::to_value(typed)
            }
            match type_name {
                #(#names => Some(again::<#types>(value)),)*
                _ => None,
            }
        }
    })
}

#[cfg(test)]
mod tests {
    use super::variant;

    /// The tables name a string enum's variants as typify does, values it
    /// renames included: typify's own output for the values is the oracle.
    #[test]
    fn a_variant_is_named_as_typify_names_it() {
        let values = [
            "self", "x_y_z", "http_2", "a1", "b2c", "type", "none", "ok_then",
        ];
        let root: schemars08::schema::RootSchema = serde_json::from_value(serde_json::json!({
            "$defs": {"E": {"type": "string", "enum": values}},
        }))
        .unwrap();
        let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
        space.add_root_schema(root).unwrap();
        let code = space.to_stream().to_string();
        for value in values {
            let renamed = format!("rename = \"{value}\")] ");
            let at = code
                .find(&renamed)
                .unwrap_or_else(|| panic!("{value} in {code}"));
            let typified = code[at + renamed.len()..].split([' ', ',']).next().unwrap();
            assert_eq!(variant(value).to_string(), typified, "{value}");
        }
    }
}
