//! From validated params to what a handler reads: the declared defaults filled in, and the
//! params decoded into a typed struct.

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use super::spec::{as_int, ParamType, VerbSpec};
use crate::error::{ErrorCode, Hint, VerbError};

/// The params with each declared default filled in where the caller left the parameter out (or
/// sent null), so handlers see the default the registry publishes.
pub fn with_defaults(spec: &VerbSpec, params: &Value) -> Value {
    let mut map = match params {
        Value::Object(m) => m.clone(),
        _ => Map::new(),
    };
    for p in spec.params {
        let Some(default) = p.default else { continue };
        if map.get(p.name).is_some_and(|v| !v.is_null()) {
            continue;
        }
        let value = match p.ty {
            ParamType::Bool => Value::Bool(default == "true"),
            ParamType::Int => default
                .parse::<i64>()
                .map(Value::from)
                .unwrap_or(Value::Null),
            _ => Value::String(default.to_owned()),
        };
        map.insert(p.name.to_owned(), value);
    }
    Value::Object(map)
}

/// Rewrites whole-number floats (`3.0`) as integers so typed decoding accepts what `validate`
/// accepted.
fn normalize_numbers(value: &mut Value) {
    match value {
        Value::Number(n) if n.is_f64() => {
            if let Some(i) = as_int(value) {
                *value = Value::from(i);
            }
        }
        Value::Array(items) => items.iter_mut().for_each(normalize_numbers),
        Value::Object(map) => map.values_mut().for_each(normalize_numbers),
        _ => {}
    }
}

/// Decodes validated params into a typed struct. `Null` decodes as `{}`; any failure is
/// `invalid_params`.
pub fn decode<T: DeserializeOwned>(params: &Value) -> Result<T, VerbError> {
    let mut value = match params {
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    };
    normalize_numbers(&mut value);
    serde_json::from_value(value).map_err(|e| {
        VerbError::new(
            ErrorCode::InvalidParams,
            format!("params could not be read: {e}"),
        )
        .with_hint(Hint::new().verb("list-verbs").detail(
            "list-verbs gives this verb's parameter schema, including each parameter's type.",
        ))
    })
}
