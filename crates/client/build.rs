//! Generates the typed client from the committed OpenAPI document (`openapi/openapi.json`,
//! which CI checks against the server): rendered as OpenAPI 3.0 (`src/openapi30.rs`), then
//! progenitor's generator, into `$OUT_DIR/generated.rs`.

#[path = "src/openapi30.rs"]
#[allow(dead_code)]
mod openapi30;

use std::path::Path;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let document = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../openapi/openapi.json");
    println!("cargo::rerun-if-changed={}", document.display());
    println!("cargo::rerun-if-changed=src/openapi30.rs");
    let document: serde_json::Value = serde_json::from_slice(&std::fs::read(&document)?)?;
    let mut rendered = openapi30::render(document)?;
    keep_one_success_body(&mut rendered);
    accept_unknown_fields(&mut rendered);
    let spec: openapiv3::OpenAPI = serde_json::from_value(rendered)?;
    let mut settings = progenitor_impl::GenerationSettings::new();
    settings
        .with_interface(progenitor_impl::InterfaceStyle::Builder)
        .with_tag(progenitor_impl::TagStyle::Merged)
        .with_inner_type(quote::quote!(crate::Inner))
        .with_hooks(progenitor_impl::HooksMode::Expected);
    let tokens = progenitor_impl::Generator::new(&settings).generate_tokens(&spec)?;
    let out = Path::new(&std::env::var("OUT_DIR")?).join("generated.rs");
    std::fs::write(out, tokens.to_string())?;
    Ok(())
}

/// progenitor gives an operation one success type: where success responses carry different
/// bodies (`get_report_proof`: 200 the proof, 202 "not in a checkpoint yet"), the first is
/// typed and the others reach the caller as `Error::UnexpectedResponse` with their success
/// status (the crate's hooks keep their bytes).
fn keep_one_success_body(document: &mut serde_json::Value) {
    let Some(paths) = document["paths"].as_object_mut() else {
        return;
    };
    for operation in paths
        .values_mut()
        .filter_map(|item| item.as_object_mut())
        .flat_map(|item| item.values_mut())
    {
        let Some(responses) = operation["responses"].as_object_mut() else {
            continue;
        };
        let mut first_body = None;
        let mut differing = Vec::new();
        for (status, response) in responses.iter() {
            if !status.starts_with('2') {
                continue;
            }
            let body = response.get("content").cloned();
            match &first_body {
                None => first_body = Some(body),
                Some(first) if *first != body => differing.push(status.clone()),
                Some(_) => {}
            }
        }
        for status in differing {
            responses.remove(&status);
        }
    }
}

/// The server refuses unknown fields in requests (`additionalProperties: false`); a client
/// must not refuse them in responses, or every field the server adds (the contract allows it)
/// would break the clients already out there. Requests are unaffected: the generated types
/// serialise only their own fields.
fn accept_unknown_fields(value: &mut serde_json::Value) {
    match value {
        serde_json::Value::Object(object) => {
            if object.get("additionalProperties") == Some(&serde_json::Value::Bool(false)) {
                object.remove("additionalProperties");
            }
            object.values_mut().for_each(accept_unknown_fields);
        }
        serde_json::Value::Array(items) => items.iter_mut().for_each(accept_unknown_fields),
        _ => {}
    }
}
