//! Code typify does not write, from the same schema set: `RpcErrorCode` as a
//! real enum over its integers (typify would make a validated newtype of an
//! integer enum), the protocol version as a type that only holds 1, tolerant
//! empty structs, and constant tables read from the schemas' annotations.

use anyhow::{bail, Context};
use contract::{DocKind, SchemaDoc, SchemaSet};
use heck::ToPascalCase;
use proc_macro2::{Ident, Span, TokenStream};
use quote::quote;
use serde_json::Value;

use super::bundle::Bundle;

pub struct Tables {
    pub tokens: TokenStream,
    /// Type names written here, which typify must refer to instead of generating.
    pub replaced: Vec<String>,
}

fn ident(name: &str) -> Ident {
    Ident::new(name, Span::call_site())
}

/// The variant name typify gives a string value (it uses heck too).
fn variant(value: &str) -> Ident {
    ident(&value.to_pascal_case())
}

fn doc_of(doc: &SchemaDoc) -> String {
    let description = doc
        .value
        .get("description")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let since = doc
        .value
        .get("x-since")
        .and_then(Value::as_str)
        .unwrap_or("?");
    format!("{description}\n\nSince contract {since}.")
}

fn strings(value: Option<&Value>) -> Vec<&str> {
    contract::string_list(value)
}

pub fn tables(set: &SchemaSet, bundle: &Bundle) -> anyhow::Result<Tables> {
    let mut tokens = quote! {
        use super::types::*;
    };
    let mut replaced = Vec::new();

    tokens.extend(rpc_error_code(set)?);
    replaced.push("RpcErrorCode".to_string());
    tokens.extend(protocol_version(set)?);
    replaced.push("ProtocolVersion".to_string());

    if bundle.has_secret {
        tokens.extend(quote! {
            /// A credential (a field marked `x-secret`). It reads and writes as
            /// the plain string on the wire, and `Debug` never prints it, so a
            /// logged request does not leak it.
            #[derive(Clone, Default, PartialEq, Eq, ::serde::Deserialize, ::serde::Serialize)]
            #[serde(transparent)]
            pub struct SecretString(::std::string::String);

            impl SecretString {
                pub fn new(secret: impl Into<::std::string::String>) -> Self {
                    Self(secret.into())
                }

                /// The secret itself, for the one place that needs it.
                pub fn expose(&self) -> &str {
                    &self.0
                }
            }

            impl ::std::fmt::Debug for SecretString {
                fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                    f.write_str("SecretString(<redacted>)")
                }
            }

            impl ::std::convert::From<::std::string::String> for SecretString {
                fn from(secret: ::std::string::String) -> Self {
                    Self(secret)
                }
            }
        });
        replaced.push(super::bundle::SECRET_TYPE.to_string());
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
        replaced.push(name.clone());
    }

    for doc in set.of_kind(DocKind::Type) {
        let values = strings(doc.value.get("enum"));
        if doc.value.get("type").and_then(Value::as_str) != Some("string") || values.is_empty() {
            continue;
        }
        let name = ident(&doc.name);
        let all = values.iter().map(|value| variant(value));
        let count = values.len();
        let mut extra = TokenStream::new();
        if let Some(codes) = doc.value.get("x-carriesHttpStatus") {
            let carriers: Vec<Ident> = strings(Some(codes)).into_iter().map(variant).collect();
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

    tokens.extend(method_table(set, bundle)?);
    tokens.extend(event_table(set)?);
    tokens.extend(reserialize(bundle));
    tokens.extend(quote! {
        /// Reads a field that is present, as a value or `null`: `Some(value)`
        /// or `Some(None)`. An absent field never gets here (it takes the
        /// field's default, `None`), which is how absent and `null` stay apart.
        pub fn present_or_null<'de, D, T>(
            deserializer: D,
        ) -> ::std::result::Result<::std::option::Option<::std::option::Option<T>>, D::Error>
        where
            D: ::serde::Deserializer<'de>,
            T: ::serde::Deserialize<'de>,
        {
            <::std::option::Option<T> as ::serde::Deserialize>::deserialize(deserializer).map(Some)
        }
    });
    Ok(Tables { tokens, replaced })
}

fn rpc_error_code(set: &SchemaSet) -> anyhow::Result<TokenStream> {
    let doc = set
        .get(DocKind::Type, "RpcErrorCode")
        .context("types/RpcErrorCode.json is missing")?;
    let codes: Vec<i64> = doc
        .value
        .get("enum")
        .and_then(Value::as_array)
        .map(|items| items.iter().filter_map(Value::as_i64).collect())
        .unwrap_or_default();
    let names = strings(doc.value.get("x-enum-varnames"));
    if codes.is_empty() || codes.len() != names.len() {
        bail!("types/RpcErrorCode.json: `enum` and `x-enum-varnames` must list the same number of values");
    }
    let description = doc_of(doc);
    let variants: Vec<Ident> = names.iter().map(|name| variant(name)).collect();
    let count = codes.len();
    Ok(quote! {
        #[doc = #description]
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
        #[repr(i64)]
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
                Self::ALL.into_iter().find(|known| known.code() == code)
            }
        }

        impl ::std::fmt::Display for RpcErrorCode {
            fn fmt(&self, f: &mut ::std::fmt::Formatter<'_>) -> ::std::fmt::Result {
                f.write_str(self.name())
            }
        }

        impl ::std::str::FromStr for RpcErrorCode {
            type Err = ::std::string::String;
            fn from_str(name: &str) -> ::std::result::Result<Self, Self::Err> {
                Self::ALL
                    .into_iter()
                    .find(|known| known.name() == name)
                    .ok_or_else(|| format!("{name:?} is not an RpcErrorCode name"))
            }
        }

        impl ::serde::Serialize for RpcErrorCode {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_i64(self.code())
            }
        }

        impl<'de> ::serde::Deserialize<'de> for RpcErrorCode {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let code = i64::deserialize(deserializer)?;
                Self::from_code(code).ok_or_else(|| {
                    <D::Error as ::serde::de::Error>::custom(format!("{code} is not an RpcErrorCode"))
                })
            }
        }
    })
}

fn protocol_version(set: &SchemaSet) -> anyhow::Result<TokenStream> {
    let doc = set
        .get(DocKind::Envelope, "ProtocolVersion")
        .context("envelope/ProtocolVersion.json is missing")?;
    let version = match doc
        .value
        .get("enum")
        .and_then(Value::as_array)
        .map(Vec::as_slice)
    {
        Some([one]) => one
            .as_u64()
            .context("envelope/ProtocolVersion.json: the version is not an integer")?,
        _ => bail!("envelope/ProtocolVersion.json: `enum` must hold exactly one version"),
    };
    let description = doc_of(doc);
    Ok(quote! {
        /// The envelope format's version, read from `envelope/ProtocolVersion.json`.
        pub const PROTOCOL_VERSION: u64 = #version;

        #[doc = #description]
        ///
        /// It holds one value, so it is a unit: it writes [`PROTOCOL_VERSION`]
        /// and refuses to read anything else.
        #[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
        pub struct ProtocolVersion;

        impl ::serde::Serialize for ProtocolVersion {
            fn serialize<S: ::serde::Serializer>(&self, serializer: S) -> ::std::result::Result<S::Ok, S::Error> {
                serializer.serialize_u64(PROTOCOL_VERSION)
            }
        }

        impl<'de> ::serde::Deserialize<'de> for ProtocolVersion {
            fn deserialize<D: ::serde::Deserializer<'de>>(deserializer: D) -> ::std::result::Result<Self, D::Error> {
                let version = u64::deserialize(deserializer)?;
                if version == PROTOCOL_VERSION {
                    Ok(ProtocolVersion)
                } else {
                    Err(<D::Error as ::serde::de::Error>::custom(format!(
                        "protocol version {version} is not {PROTOCOL_VERSION}"
                    )))
                }
            }
        }
    })
}

/// Branch tags of an envelope body, in the order the body lists them.
fn body_order(set: &SchemaSet, body: &str, tag: &str) -> Vec<String> {
    set.get(DocKind::Envelope, body)
        .and_then(|doc| doc.value.get("oneOf"))
        .and_then(Value::as_array)
        .map(|branches| {
            branches
                .iter()
                .filter_map(|branch| branch.pointer(&format!("/properties/{tag}/const")))
                .filter_map(Value::as_str)
                .map(str::to_string)
                .collect()
        })
        .unwrap_or_default()
}

fn method_table(set: &SchemaSet, bundle: &Bundle) -> anyhow::Result<TokenStream> {
    let mut entries = Vec::new();
    let mut call_arms = Vec::new();
    let mut reply_arms = Vec::new();
    for name in body_order(set, "CallBody", "method") {
        let doc = set
            .get(DocKind::Method, &name)
            .with_context(|| format!("CallBody names {name}, which has no file"))?;
        let transports = strings(doc.value.get("x-transports"))
            .into_iter()
            .map(variant);
        let errors = strings(doc.value.get("x-errors")).into_iter().map(variant);
        let since = doc
            .value
            .get("x-since")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let spawns = doc
            .value
            .get("x-spawnsProcess")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        let summary = doc
            .value
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let params = bundle.shape_name(doc, "params")?;
        let result = bundle.shape_name(doc, "result")?;
        entries.push(quote! {
            MethodInfo {
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
        let variant = variant(&name);
        call_arms.push(quote! { super::types::CallBody::#variant(_) => #name });
        reply_arms.push(quote! { super::types::ReplyBody::#variant(_) => #name });
    }
    Ok(quote! {
        /// What the schemas say about one method, beyond its shapes.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct MethodInfo {
            /// The wire name (`noun.verb`).
            pub name: &'static str,
            /// The method's description.
            pub summary: &'static str,
            /// Where it may be carried (`x-transports`).
            pub transports: &'static [super::types::Transport],
            /// The call errors it may answer with (`x-errors`).
            pub errors: &'static [RpcErrorCode],
            /// The contract version that introduced it (`x-since`).
            pub since: &'static str,
            /// Whether it starts processes (`x-spawnsProcess`).
            pub spawns_process: bool,
            /// The Rust type of its params.
            pub params_type: &'static str,
            /// The Rust type of its result.
            pub result_type: &'static str,
        }

        /// Every method, in the order the envelope lists them.
        pub const METHODS: &[MethodInfo] = &[#(#entries),*];

        /// The method with this wire name.
        pub fn method_info(name: &str) -> Option<&'static MethodInfo> {
            METHODS.iter().find(|info| info.name == name)
        }

        impl super::types::CallBody {
            /// The wire name of the method called.
            pub fn method(&self) -> &'static str {
                match self { #(#call_arms,)* }
            }
        }

        impl super::types::ReplyBody {
            /// The wire name of the method answered.
            pub fn method(&self) -> &'static str {
                match self { #(#reply_arms,)* }
            }
        }
    })
}

fn event_table(set: &SchemaSet) -> anyhow::Result<TokenStream> {
    let mut entries = Vec::new();
    let mut arms = Vec::new();
    for name in body_order(set, "EventBody", "name") {
        let doc = set
            .get(DocKind::Event, &name)
            .with_context(|| format!("EventBody names {name}, which has no file"))?;
        let since = doc
            .value
            .get("x-since")
            .and_then(Value::as_str)
            .unwrap_or_default();
        let summary = doc
            .value
            .get("description")
            .and_then(Value::as_str)
            .unwrap_or_default();
        entries.push(quote! { EventInfo { name: #name, summary: #summary, since: #since } });
        let variant = variant(&name);
        arms.push(quote! { super::types::EventBody::#variant(_) => #name });
    }
    Ok(quote! {
        /// What the schemas say about one event.
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        pub struct EventInfo {
            /// The wire name (`event.<noun>.<what>`).
            pub name: &'static str,
            /// The event's description.
            pub summary: &'static str,
            /// The contract version that introduced it (`x-since`).
            pub since: &'static str,
        }

        /// Every event, in the order the envelope lists them.
        pub const EVENTS: &[EventInfo] = &[#(#entries),*];

        impl super::types::EventBody {
            /// The wire name of the event.
            pub fn name(&self) -> &'static str {
                match self { #(#arms,)* }
            }
        }
    })
}

/// A way to read any named type from JSON and write it back, by name, so a
/// checker can ask the generated types for their own verdict on a value.
fn reserialize(bundle: &Bundle) -> TokenStream {
    let names: Vec<&String> = bundle.defined_names().collect();
    let types = names.iter().map(|name| ident(name));
    quote! {
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
    }
}
