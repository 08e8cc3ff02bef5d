//! The readers and writers of structs and values: what a named type's JSON
//! must hold, checked as it is read, and how it is written back.

use super::*;

impl Emitter<'_> {
    /// Statements that read JSON `src` into C++ lvalue `dst`, at `at`.
    pub(super) fn read_value(
        &mut self,
        ty: &Ty,
        secret: bool,
        src: &str,
        dst: &str,
        indent: &str,
    ) -> anyhow::Result<String> {
        let mut out = String::new();
        match ty {
            Ty::Bool => {
                let _ = writeln!(out, "{indent}read_bool({src}, {dst}, at);");
            }
            Ty::Int { min, max } => {
                let _ = writeln!(
                    out,
                    "{indent}read_int({src}, {dst}, {}, {max}, at);",
                    int_literal(*min)
                );
            }
            Ty::Str(rules) => {
                let checks = self.string_checks(rules, "text", indent);
                let _ = writeln!(
                    out,
                    "{indent}{{\n{indent}  const std::string& text = read_string({src}, at);"
                );
                out.push_str(&indent_more(&checks));
                if secret {
                    let _ = writeln!(out, "{indent}  {dst} = SecretString(text);");
                } else {
                    let _ = writeln!(out, "{indent}  {dst} = text;");
                }
                let _ = writeln!(out, "{indent}}}");
            }
            Ty::Named(name) => {
                let _ = writeln!(out, "{indent}read_{name}({src}, {dst}, at);");
            }
            Ty::Array {
                items,
                max_items,
                unique,
            } => {
                let max = max_items.map_or("static_cast<std::size_t>(-1)".to_string(), |max| {
                    max.to_string()
                });
                let item_type = self.cpp_type(items, false);
                let n = self.loop_suffix();
                let item = self.read_value(
                    items,
                    false,
                    &format!("item{n}"),
                    &format!("into{n}"),
                    &format!("{indent}    "),
                );
                self.loops -= 1;
                let item = item?;
                let _ = writeln!(
                    out,
                    "{indent}expect_array({src}, {max}, at);\n{indent}{dst}.clear();\n{indent}{dst}.reserve({src}.size());\n\
                     {indent}for (std::size_t index{n} = 0; index{n} < {src}.size(); ++index{n}) {{\n\
                     {indent}  Step item_step{n}(at, index{n});\n{indent}  const json& item{n} = {src}[index{n}];\n\
                     {indent}  {item_type}& into{n} = {dst}.emplace_back();\n{indent}  {{\n{item}{indent}  }}\n{indent}}}"
                );
                if *unique {
                    let _ = writeln!(out, "{indent}check_unique({dst}, at);");
                }
            }
            Ty::Map {
                values,
                max_entries,
            } => {
                let value_type = self.cpp_type(values, false);
                let n = self.loop_suffix();
                let value = self.read_value(
                    values,
                    false,
                    &format!("entry{n}.value()"),
                    &format!("into{n}"),
                    &format!("{indent}    "),
                );
                self.loops -= 1;
                let value = value?;
                let _ = writeln!(out, "{indent}expect_object({src}, at);");
                if let Some(max) = max_entries {
                    let _ = writeln!(
                        out,
                        "{indent}if ({src}.size() > {max}) fail(at, std::to_string({src}.size()) + \" entries, more than the {max} allowed\");"
                    );
                }
                let _ = writeln!(
                    out,
                    "{indent}{dst}.clear();\n{indent}for (const auto& entry{n} : {src}.items()) {{\n\
                     {indent}  Step entry_step{n}(at, entry{n}.key());\n{indent}  {value_type}& into{n} = {dst}[entry{n}.key()];\n\
                     {indent}  {{\n{value}{indent}  }}\n{indent}}}"
                );
            }
            Ty::Any => {
                let _ = writeln!(out, "{indent}{dst} = {src};");
            }
        }
        Ok(out)
    }

    /// Enters one more item loop: the suffix its variables take (none for
    /// the outermost). The caller leaves it (`loops -= 1`) once the loop's
    /// body is written.
    fn loop_suffix(&mut self) -> String {
        self.loops += 1;
        if self.loops == 1 {
            String::new()
        } else {
            self.loops.to_string()
        }
    }

    pub(super) fn string_checks(&mut self, rules: &StrRules, var: &str, indent: &str) -> String {
        let mut out = String::new();
        if rules.min_len.is_some() || rules.max_len.is_some() {
            let _ = writeln!(
                out,
                "{indent}check_length({var}, {}, {}, at);",
                rules.min_len.unwrap_or(0),
                rules
                    .max_len
                    .map_or("static_cast<std::size_t>(-1)".to_string(), |max| max
                        .to_string())
            );
        }
        if let Some(pattern) = &rules.pattern {
            let index = self.pattern(pattern);
            let _ = writeln!(
                out,
                "{indent}check_pattern(pattern_{index}({var}), {}, at);",
                literal(&pattern.source)
            );
        }
        out
    }

    pub(super) fn struct_reader(
        &mut self,
        name: &str,
        fields: &[Field],
        rules: &[Rule],
    ) -> anyhow::Result<()> {
        let mut out = format!(
            "namespace detail {{\ninline void read_{name}(const json& v, {name}& out, Path& at) {{\n  expect_object(v, at);\n"
        );
        if fields.is_empty() {
            // Empty today: a later minor version may add fields, which are ignored.
            out.push_str("  (void)out;\n");
        }
        for field in fields {
            let member = format!("out.{}", ident(&field.json));
            let json = literal(&field.json);
            let _ = writeln!(out, "  {{\n    Step step(at, {json});");
            match (field.required, field.nullable) {
                (true, false) => {
                    let read =
                        self.read_value(&field.ty, field.secret, "value", &member, "    ")?;
                    let _ = write!(
                        out,
                        "    const json& value = required(v, {json}, at);\n{read}"
                    );
                }
                (true, true) => {
                    let read =
                        self.read_value(&field.ty, field.secret, "value", "slot", "      ")?;
                    let _ = write!(
                        out,
                        "    const json& value = required(v, {json}, at);\n    if (value.is_null()) {{\n      {member}.reset();\n    }} else {{\n      auto& slot = {member}.emplace();\n{read}    }}\n"
                    );
                }
                (false, false) => {
                    let read =
                        self.read_value(&field.ty, field.secret, "(*value)", "slot", "      ")?;
                    let _ = write!(
                        out,
                        "    if (const json* value = optional(v, {json})) {{\n      auto& slot = {member}.emplace();\n{read}    }} else {{\n      {member}.reset();\n    }}\n"
                    );
                }
                (false, true) => {
                    let read =
                        self.read_value(&field.ty, field.secret, "(*value)", "slot", "        ")?;
                    let _ = write!(
                        out,
                        "    if (const json* value = optional(v, {json})) {{\n      if (value->is_null()) {{\n        {member}.emplace(std::nullopt);\n      }} else {{\n        auto& slot = {member}.emplace().emplace();\n{read}      }}\n    }} else {{\n      {member}.reset();\n    }}\n"
                    );
                }
            }
            out.push_str("  }\n");
        }
        for rule in rules {
            out.push_str(&self.rule(rule, fields)?);
        }
        out.push_str("}\n}  // namespace detail\n\n");
        self.out.push_str(&out);
        self.emit_from_json(name);
        Ok(())
    }

    pub(super) fn rule(&mut self, rule: &Rule, fields: &[Field]) -> anyhow::Result<String> {
        let field = |name: &str| {
            fields
                .iter()
                .find(|field| field.json == name)
                .context("rule names a field")
        };
        let tested = field(&rule.field)?;
        let member = format!("out.{}", ident(&tested.json));
        let value_of = |value: &str| -> String {
            match &tested.ty {
                Ty::Named(enum_name) if self.is_string_enum(enum_name) => {
                    format!("{enum_name}::{}", enumerator(value))
                }
                _ => literal(value),
            }
        };
        let deref = if tested.required {
            member.clone()
        } else {
            format!("*{member}")
        };
        let tests: Vec<String> = rule
            .values
            .iter()
            .map(|value| format!("{deref} == {}", value_of(value)))
            .collect();
        let condition = if tested.required {
            tests.join(" || ")
        } else {
            format!("{member} && ({})", tests.join(" || "))
        };
        let why = format!("{}: {}", rule.id, rule.description);
        let mut out = String::new();
        comment(&mut out, "  ", &why);
        let _ = writeln!(out, "  if ({condition}) {{");
        out.push_str(&self.clauses(&rule.then, fields, &why)?);
        out.push_str("  } else {\n");
        out.push_str(&self.clauses(&rule.otherwise, fields, &why)?);
        out.push_str("  }\n");
        Ok(out)
    }

    pub(super) fn clauses(
        &mut self,
        clauses: &[Clause],
        fields: &[Field],
        why: &str,
    ) -> anyhow::Result<String> {
        let mut out = String::new();
        let why = literal(why);
        for clause in clauses {
            let (name, test) = match clause {
                Clause::Required(name) => (name, format!("!out.{}", ident(name))),
                Clause::Absent(name) => (name, format!("out.{}", ident(name))),
                Clause::NotEqual(name, value) => {
                    let field = fields
                        .iter()
                        .find(|field| field.json == *name)
                        .context("rule names a field")?;
                    let value = match &field.ty {
                        Ty::Named(enum_name) if self.is_string_enum(enum_name) => {
                            format!("{enum_name}::{}", enumerator(value))
                        }
                        _ => literal(value),
                    };
                    let member = format!("out.{}", ident(name));
                    if field.required {
                        (name, format!("{member} == {value}"))
                    } else {
                        (name, format!("{member} && *{member} == {value}"))
                    }
                }
                Clause::Length {
                    field: name,
                    min,
                    max,
                } => {
                    let field = fields
                        .iter()
                        .find(|field| field.json == *name)
                        .context("rule names a field")?;
                    let member = format!("out.{}", ident(name));
                    let text = if field.required {
                        member.clone()
                    } else {
                        format!("*{member}")
                    };
                    let length = format!("code_points({text})");
                    let mut parts = Vec::new();
                    if let Some(min) = min {
                        parts.push(format!("{length} < {min}"));
                    }
                    if let Some(max) = max {
                        parts.push(format!("{length} > {max}"));
                    }
                    let test = format!("({})", parts.join(" || "));
                    if field.required {
                        (name, test)
                    } else {
                        (name, format!("{member} && {test}"))
                    }
                }
            };
            let _ = writeln!(
                out,
                "    if ({test}) {{\n      Step step(at, {});\n      fail(at, {why});\n    }}",
                literal(name)
            );
        }
        Ok(out)
    }

    pub(super) fn struct_writer(&mut self, name: &str, fields: &[Field]) {
        let mut out = format!("inline void to_json(nlohmann::json& j, const {name}& value) {{\n  j = nlohmann::json::object();\n");
        if fields.is_empty() {
            out.push_str("  (void)value;\n");
        }
        for field in fields {
            let member = format!("value.{}", ident(&field.json));
            let json = literal(&field.json);
            // A free-form value is copied only once its depth is known to
            // be one a reader takes (`detail::within_depth`); anything else
            // is written in place (`detail::write_into`), since a named
            // type's `to_json` may hold such a value and throw.
            let write = |value: &str| {
                if holds_any(&field.ty) {
                    let what = literal(&format!("the value of \"{}\"", field.json));
                    format!("j[{json}] = detail::within_depth({value}, {what});")
                } else {
                    format!("detail::write_into(j[{json}], {value});")
                }
            };
            let (plain, once, twice) = (
                write(&member),
                write(&format!("*{member}")),
                write(&format!("**{member}")),
            );
            match (field.required, field.nullable) {
                (true, false) => {
                    let _ = writeln!(out, "  {plain}");
                }
                (true, true) => {
                    let _ = writeln!(out, "  if ({member}) {{\n    {once}\n  }} else {{\n    j[{json}] = nullptr;\n  }}");
                }
                (false, false) => {
                    let _ = writeln!(out, "  if ({member}) {once}");
                }
                (false, true) => {
                    let _ = writeln!(
                        out,
                        "  if ({member}) {{\n    if (*{member}) {{\n      {twice}\n    }} else {{\n      j[{json}] = nullptr;\n    }}\n  }}"
                    );
                }
            }
        }
        out.push_str("}\n\n");
        self.out.push_str(&out);
    }
}

/// Whether a field of this type holds free-form values the writer copies
/// as they are (not through a named type's own `to_json`).
fn holds_any(ty: &Ty) -> bool {
    match ty {
        Ty::Any => true,
        Ty::Array { items, .. } => holds_any(items),
        Ty::Map { values, .. } => holds_any(values),
        Ty::Bool | Ty::Int { .. } | Ty::Str(_) | Ty::Named(_) => false,
    }
}
