//! An object's `allOf` of `if`/`then`/`else` rules, read into [`Rule`]s
//! the emitters can write as checks.

use super::*;

/// Reads one `allOf` entry: `{x-rule, if: {properties: {F: {enum|const}},
/// required: [F]}, then: CLAUSES, else: CLAUSES}`.
pub(super) fn rule(part: &Value, fields: &[Field]) -> anyhow::Result<Rule> {
    let id = part
        .get("x-rule")
        .and_then(Value::as_str)
        .context("an allOf entry needs an x-rule id")?;
    let condition = part
        .get("if")
        .context("an allOf entry is an if/then rule")?;
    let props = condition
        .get("properties")
        .and_then(Value::as_object)
        .context("if: needs properties")?;
    let [(field, test)] = props.iter().collect::<Vec<_>>()[..] else {
        bail!("if: tests one property");
    };
    // The emitters test the one value and nothing else: any other keyword
    // of the condition but an annotation (a `type`, a closed object, a
    // length beside the `const`) would make the validator's rule fire
    // where theirs does not.
    for key in condition
        .as_object()
        .into_iter()
        .flatten()
        .map(|(key, _)| key)
    {
        if !matches!(
            key.as_str(),
            "properties" | "required" | "description" | "$comment"
        ) {
            bail!("if: {key}: not read in a rule");
        }
    }
    for key in test.as_object().into_iter().flatten().map(|(key, _)| key) {
        if !matches!(key.as_str(), "enum" | "const" | "description" | "$comment") {
            bail!("if: {field}: {key}: not read in a rule");
        }
    }
    if contract::string_list(condition.get("required")) != [field.as_str()] {
        bail!("if: must require the property it tests");
    }
    // Strings only, and at least one: a value of another type cannot be
    // written as the emitters' comparison, and none would test nothing.
    let values: Option<Vec<String>> = match (test.get("enum"), test.get("const")) {
        (Some(Value::Array(values)), None) => values
            .iter()
            .map(|value| value.as_str().map(str::to_string))
            .collect(),
        (None, Some(Value::String(one))) => Some(vec![one.clone()]),
        _ => None,
    };
    let Some(values) = values.filter(|values| !values.is_empty()) else {
        bail!("if: the property is tested with `enum` or `const` of strings");
    };
    if !fields.iter().any(|known| known.json == *field) {
        bail!("if: {field} is not a property");
    }
    let clauses = |key: &str| -> anyhow::Result<Vec<Clause>> {
        match part.get(key) {
            None => Ok(Vec::new()),
            Some(value) => clauses(value, fields).with_context(|| key.to_string()),
        }
    };
    for key in part.as_object().into_iter().flatten().map(|(key, _)| key) {
        if !matches!(
            key.as_str(),
            "x-rule" | "description" | "if" | "then" | "else"
        ) {
            bail!("{key}: not read in a rule");
        }
    }
    Ok(Rule {
        id: id.to_string(),
        description: text(part.get("description")),
        field: field.clone(),
        values,
        then: clauses("then")?,
        otherwise: clauses("else")?,
    })
}

pub(super) fn clauses(schema: &Value, fields: &[Field]) -> anyhow::Result<Vec<Clause>> {
    let field = |name: &str| -> anyhow::Result<&Field> {
        fields
            .iter()
            .find(|known| known.json == name)
            .with_context(|| format!("{name} is not a property"))
    };
    let optional = |name: &str| -> anyhow::Result<String> {
        if field(name)?.required {
            bail!("{name} is required anyway; a rule about its presence says nothing");
        }
        Ok(name.to_string())
    };
    let mut out = Vec::new();
    for (key, value) in schema.as_object().into_iter().flatten() {
        match key.as_str() {
            "required" => {
                for name in contract::string_list(Some(value)) {
                    out.push(Clause::Required(optional(name)?));
                }
            }
            "not" => {
                let names = contract::string_list(value.get("required"));
                if value.as_object().map(Map::len) != Some(1) || names.is_empty() {
                    bail!("not: the generators read `not: {{required: [...]}}` only");
                }
                for name in names {
                    out.push(Clause::Absent(optional(name)?));
                }
            }
            "properties" => {
                for (name, test) in value.as_object().into_iter().flatten() {
                    field(name)?;
                    let test = test.as_object().context("a property test is an object")?;
                    for (keyword, arg) in test {
                        match keyword.as_str() {
                            "not" => match arg.get("const").and_then(Value::as_str) {
                                Some(value) if arg.as_object().map(Map::len) == Some(1) => {
                                    out.push(Clause::NotEqual(name.clone(), value.to_string()))
                                }
                                _ => bail!("properties/{name}/not: the generators read `not: {{const: STRING}}` only"),
                            },
                            "minLength" | "maxLength" => {}
                            other => bail!("properties/{name}/{other}: not read in a rule"),
                        }
                    }
                    let (min, max) = (
                        test.get("minLength").and_then(Value::as_u64),
                        test.get("maxLength").and_then(Value::as_u64),
                    );
                    if min.is_some() || max.is_some() {
                        out.push(Clause::Length {
                            field: name.clone(),
                            min,
                            max,
                        });
                    }
                }
            }
            "description" => {}
            other => bail!("{other}: not read in a rule's consequence"),
        }
    }
    Ok(out)
}

/// What a rule does to a field, the emitters write for a string: a test of
/// its value compares it with a string (or a string enum's value), and a
/// length counts its characters. JSON Schema lets the same keywords stand on
/// a field of another type, where they hold nothing; the emitters would
/// write a comparison that does not compile, so such a rule is refused.
pub(super) fn rules_fit(model: &Model) -> anyhow::Result<()> {
    let text_kind = |ty: &Ty, enum_too: bool| -> bool {
        let mut ty = ty;
        // Aliases of aliases, bounded by the number of types.
        for _ in 0..=model.types.len() {
            match ty {
                Ty::Str(_) => return true,
                Ty::Named(name) => match model.get(name).map(|named| &named.def) {
                    Some(Def::StringEnum(_)) => return enum_too,
                    Some(Def::Alias(inner)) => ty = inner,
                    _ => return false,
                },
                _ => return false,
            }
        }
        false
    };
    for named in &model.types {
        let Def::Struct(st) = &named.def else {
            continue;
        };
        let ty_of = |name: &str| {
            st.fields
                .iter()
                .find(|field| field.json == name)
                .map(|field| &field.ty)
        };
        for (index, rule) in st.rules.iter().enumerate() {
            let at = format!("{}/allOf/{index}", named.origin);
            if !ty_of(&rule.field).is_some_and(|ty| text_kind(ty, true)) {
                bail!(
                    "{at}/if: {} is not a string, and the rule tests it against strings",
                    rule.field
                );
            }
            for clause in rule.then.iter().chain(&rule.otherwise) {
                match clause {
                    Clause::NotEqual(field, _)
                        if !ty_of(field).is_some_and(|ty| text_kind(ty, true)) =>
                    {
                        bail!("{at}: {field} is not a string, and the rule compares it with one");
                    }
                    Clause::Length { field, .. }
                        if !ty_of(field).is_some_and(|ty| text_kind(ty, false)) =>
                    {
                        bail!("{at}: {field} is not a string, and the rule counts its characters");
                    }
                    _ => {}
                }
            }
        }
    }
    Ok(())
}
