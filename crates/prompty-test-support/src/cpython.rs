//! Golden data from CPython for Python `str()`/`repr()`: `data/pyrepr/golden.json`,
//! written by `data/pyrepr/gen.py` (see its docstring for the sections). prompty-py tests
//! its JSON and scalar printing against it, prompty-render its printing of template values.

/// The golden data file.
pub const GOLDEN: &str = include_str!("../data/pyrepr/golden.json");

/// The golden data, parsed.
///
/// # Panics
///
/// When the file is not JSON.
pub fn golden() -> serde_json::Value {
    match serde_json::from_str(GOLDEN) {
        Ok(v) => v,
        Err(e) => panic!("golden.json: {e}"),
    }
}

/// The items of one section (`cases`, `floats`, `ints`, `bytes`).
///
/// # Panics
///
/// When the section is missing or empty.
pub fn section<'a>(g: &'a serde_json::Value, name: &str) -> &'a [serde_json::Value] {
    match g.get(name).and_then(|v| v.as_array()) {
        Some(items) if !items.is_empty() => items,
        _ => panic!("golden.json: section {name:?} missing or empty"),
    }
}

/// Item `i` of section `name` as its value and CPython's text.
///
/// # Panics
///
/// When the item is not a `[value, string]` pair.
pub fn pair<'a>(item: &'a serde_json::Value, name: &str, i: usize) -> (&'a serde_json::Value, &'a str) {
    match item.as_array().map(Vec::as_slice) {
        Some([value, serde_json::Value::String(want)]) => (value, want.as_str()),
        _ => panic!("golden.json: {name}[{i}] is not a [value, string] pair"),
    }
}

/// The double whose bits a `"0x<hex>"` string spells.
pub fn parse_bits(v: &serde_json::Value) -> Option<f64> {
    v.as_str().and_then(|s| s.strip_prefix("0x")).and_then(|s| u64::from_str_radix(s, 16).ok()).map(f64::from_bits)
}

/// Turns every `{"$f64": "0x<bits>"}` of the golden data into that exact double.
///
/// # Panics
///
/// On a tag that is not a finite double's bits.
pub fn untag_floats(v: &serde_json::Value) -> serde_json::Value {
    use serde_json::Value as J;
    match v {
        J::Object(map) => {
            if let (1, Some(bits)) = (map.len(), map.get("$f64")) {
                match parse_bits(bits).and_then(serde_json::Number::from_f64) {
                    Some(n) => J::Number(n),
                    None => panic!("golden.json: bad float tag {v}"),
                }
            } else {
                J::Object(map.iter().map(|(k, v)| (k.clone(), untag_floats(v))).collect())
            }
        }
        J::Array(items) => J::Array(items.iter().map(untag_floats).collect()),
        _ => v.clone(),
    }
}

/// Fails with the first 40 of `failures` when there are any.
///
/// # Panics
///
/// When `failures` is not empty.
pub fn report(name: &str, total: usize, failures: &[String]) {
    if !failures.is_empty() {
        let shown: Vec<&str> = failures.iter().take(40).map(String::as_str).collect();
        panic!("{} of {total} golden {name} differ from CPython:\n{}", failures.len(), shown.join("\n"));
    }
}
