#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::indexing_slicing,
    missing_docs
)]
use serde_json::json;
fn main() {
    let v = jsonschema::validator_for(&json!({"type":"string","pattern":"^.{0,3}$"})).unwrap();
    for s in [
        "Lh\u{2028}Um\\ga",
        "abcd",
        "ab",
        "a\nb",
        "ab\n",
        "\u{2028}Z",
        " \u{2028}Z",
    ] {
        println!("{:?} -> {}", s, v.is_valid(&json!(s)));
    }
}
