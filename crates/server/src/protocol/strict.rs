//! Reading a client's message strictly: one JSON object, no field given
//! twice at any depth, a known `type`, no field its type does not have.

use super::ClientMessage;
use serde::de::{self, DeserializeSeed, MapAccess, SeqAccess, Visitor};
use std::collections::HashSet;
use std::fmt;

/// Parses one message strictly: a JSON object (not an array, which serde
/// would otherwise read field by field), no field twice (one parser would
/// read the last value, another the first), a known `type`, and no field
/// the type does not have.
pub fn parse(text: &str) -> Result<ClientMessage, String> {
    let mut reader = serde_json::Deserializer::from_str(text);
    NoDuplicateFields
        .deserialize(&mut reader)
        .and_then(|()| reader.end())
        .map_err(|e| format!("not a valid message: {e}"))?;
    let value: serde_json::Value =
        serde_json::from_str(text).map_err(|e| format!("not a valid message: {e}"))?;
    if !value.is_object() {
        return Err(
            "not a valid message: send a JSON object such as {\"type\": \"history\"}".into(),
        );
    }
    serde_json::from_value(value).map_err(|e| format!("not a valid message: {e}"))
}

/// Reads a JSON document and fails on an object that has a key twice, at
/// any depth.
struct NoDuplicateFields;

impl<'de> DeserializeSeed<'de> for NoDuplicateFields {
    type Value = ();

    fn deserialize<D: de::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for NoDuplicateFields {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("JSON")
    }

    fn visit_bool<E>(self, _: bool) -> Result<(), E> {
        Ok(())
    }

    fn visit_i64<E>(self, _: i64) -> Result<(), E> {
        Ok(())
    }

    fn visit_u64<E>(self, _: u64) -> Result<(), E> {
        Ok(())
    }

    fn visit_f64<E>(self, _: f64) -> Result<(), E> {
        Ok(())
    }

    fn visit_str<E>(self, _: &str) -> Result<(), E> {
        Ok(())
    }

    fn visit_unit<E>(self) -> Result<(), E> {
        Ok(())
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq.next_element_seed(NoDuplicateFields)?.is_some() {}
        Ok(())
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut seen = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !seen.insert(key.clone()) {
                return Err(de::Error::custom(format!("field {key:?} given twice")));
            }
            map.next_value_seed(NoDuplicateFields)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_field_given_twice_is_refused_at_any_depth() {
        let twice = parse(r#"{"type":"move","move":"d5:b7","move":"d5:c6"}"#);
        assert!(twice.unwrap_err().contains(r#"field "move" given twice"#));
        let type_twice = parse(r#"{"type":"history","type":"history"}"#);
        assert!(type_twice.unwrap_err().contains("given twice"));
        let nested = parse(r#"{"type":"join","key":{"a":1,"a":2}}"#);
        assert!(nested.unwrap_err().contains("given twice"));
        assert_eq!(
            parse(r#"{"type":"move","move":"d5:b7"}"#),
            Ok(ClientMessage::Move { mv: "d5:b7".into() })
        );
        assert!(parse(r#"{"type":"history"} x"#).is_err());
    }
}
