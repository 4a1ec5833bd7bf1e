//! The OpenAPI 3.0 rendering of the committed 3.1 document, for generators that read only 3.0
//! (progenitor, through `openapiv3`). The build script renders it on every build from
//! `openapi/openapi.json`, so it cannot drift from the document the server is checked against.
//!
//! What 3.1 has and 3.0 spells otherwise, in the shapes our document uses:
//! - `type: [T, "null"]` is `type: T, nullable: true`;
//! - `oneOf: [X, {type: null}]` (utoipa's `Option<Ref>`) is `allOf: [X], nullable: true`;
//! - `info.license.identifier` does not exist (3.0 has only `name` and `url`).
//!
//! Anything else 3.1-only is refused by name, so a new construct fails the build instead of
//! turning into a wrong client.

use serde_json::{Map, Value};

/// The 3.0 rendering of `document` (an OpenAPI 3.1 document), or the first construct it cannot
/// render, with its JSON pointer.
pub fn render(mut document: Value) -> Result<Value, String> {
    document["openapi"] = Value::from("3.0.3");
    if let Some(license) = document
        .pointer_mut("/info/license")
        .and_then(Value::as_object_mut)
    {
        license.remove("identifier");
    }
    if let Some(components) = document.get_mut("components") {
        walk(components, "/components")?;
    }
    if let Some(paths) = document.get_mut("paths") {
        walk(paths, "/paths")?;
    }
    Ok(document)
}

const UNSUPPORTED: &[&str] = &[
    "const",
    "prefixItems",
    "if",
    "then",
    "else",
    "unevaluatedProperties",
    "dependentRequired",
    "dependentSchemas",
    "patternProperties",
    "propertyNames",
    "$defs",
    "contentMediaType",
];

fn walk(value: &mut Value, pointer: &str) -> Result<(), String> {
    match value {
        Value::Object(object) => {
            // A `properties` map's keys are names, whatever they spell.
            if !pointer.ends_with("/properties") && is_schema(object) {
                schema(object, pointer)?;
            }
            for (key, child) in object.iter_mut() {
                walk(child, &format!("{pointer}/{key}"))?;
            }
            Ok(())
        }
        Value::Array(items) => items
            .iter_mut()
            .enumerate()
            .try_for_each(|(i, child)| walk(child, &format!("{pointer}/{i}"))),
        _ => Ok(()),
    }
}

fn is_schema(object: &Map<String, Value>) -> bool {
    [
        "type",
        "oneOf",
        "allOf",
        "anyOf",
        "properties",
        "items",
        "$ref",
    ]
    .iter()
    .any(|key| object.contains_key(*key))
}

fn schema(object: &mut Map<String, Value>, pointer: &str) -> Result<(), String> {
    if let Some(key) = UNSUPPORTED.iter().find(|key| object.contains_key(**key)) {
        return Err(format!("{pointer}: `{key}` has no OpenAPI 3.0 rendering"));
    }
    if object.contains_key("exclusiveMinimum") || object.contains_key("exclusiveMaximum") {
        return Err(format!(
            "{pointer}: a numeric exclusive bound has no OpenAPI 3.0 rendering here"
        ));
    }
    if let Some(Value::Array(types)) = object.get("type") {
        let (nulls, others): (Vec<&Value>, Vec<&Value>) =
            types.iter().partition(|t| t.as_str() == Some("null"));
        match (nulls.len(), others.as_slice()) {
            (1, [one]) => {
                let one = (*one).clone();
                object.insert("type".into(), one);
                object.insert("nullable".into(), Value::Bool(true));
            }
            (0, [one]) => {
                let one = (*one).clone();
                object.insert("type".into(), one);
            }
            _ => {
                return Err(format!(
                    "{pointer}: the type list {types:?} is not T or null"
                ));
            }
        }
    }
    if object.get("type").and_then(Value::as_str) == Some("null") {
        return Err(format!("{pointer}: a schema of type null outside `oneOf`"));
    }
    if let Some(Value::Array(variants)) = object.get("oneOf") {
        let is_null = |v: &Value| v.get("type").and_then(Value::as_str) == Some("null");
        if variants.iter().any(is_null) {
            let rest: Vec<Value> = variants.iter().filter(|v| !is_null(v)).cloned().collect();
            object.remove("oneOf");
            if rest.len() == 1 {
                object.insert("allOf".into(), Value::Array(rest));
            } else {
                object.insert("oneOf".into(), Value::Array(rest));
            }
            object.insert("nullable".into(), Value::Bool(true));
        }
    }
    if let Some(Value::Array(examples)) = object.get_mut("examples") {
        let first = examples.first().cloned();
        object.remove("examples");
        if let Some(first) = first {
            object.insert("example".into(), first);
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn nullable_types_and_references_are_spelled_as_3_0_spells_them() {
        let document = json!({
            "openapi": "3.1.0",
            "info": {"title": "t", "version": "1", "license": {"name": "Apache-2.0", "identifier": "Apache-2.0"}},
            "paths": {},
            "components": {"schemas": {
                "A": {"type": "object", "properties": {
                    "n": {"type": ["integer", "null"], "format": "int64"},
                    "r": {"oneOf": [{"type": "null"}, {"$ref": "#/components/schemas/B"}], "description": "d"},
                    "e": {"type": "string", "examples": ["x", "y"]}
                }},
                "B": {"type": "string"}
            }}
        });
        let rendered = render(document).unwrap();
        assert_eq!(rendered["openapi"], "3.0.3");
        assert_eq!(rendered["info"]["license"], json!({"name": "Apache-2.0"}));
        let properties = &rendered["components"]["schemas"]["A"]["properties"];
        assert_eq!(
            properties["n"],
            json!({"type": "integer", "format": "int64", "nullable": true})
        );
        assert_eq!(
            properties["r"],
            json!({"allOf": [{"$ref": "#/components/schemas/B"}], "nullable": true, "description": "d"})
        );
        assert_eq!(properties["e"], json!({"type": "string", "example": "x"}));
    }

    #[test]
    fn what_3_0_cannot_say_is_refused_by_name() {
        let document = json!({"openapi": "3.1.0", "info": {}, "paths": {}, "components": {"schemas": {
            "A": {"type": "object", "properties": {"k": {"type": "string", "const": "x"}}}
        }}});
        let error = render(document).unwrap_err();
        assert!(
            error.contains("/components/schemas/A/properties/k") && error.contains("`const`"),
            "{error}"
        );
    }

    #[test]
    fn the_committed_document_renders() {
        let document: Value = serde_json::from_str(include_str!("../../../openapi/openapi.json"))
            .expect("the committed document parses");
        let rendered = render(document).expect("it renders as 3.0");
        assert_eq!(rendered["openapi"], "3.0.3");
        assert!(!rendered.to_string().contains("\"null\""));
    }
}
