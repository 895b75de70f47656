//! What the runtime CLI needs to know about a program, read from the BMv2
//! JSON p4c wrote: each table's key fields in order with their match kinds,
//! and each action's parameters in order. STF names keys and parameters; the
//! CLI takes them by position.

use std::collections::HashMap;
use std::path::Path;

use crate::Error;

/// A table's key field.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyField {
    /// The name p4c gave it (`hdr.esa.job`, or a `@name`).
    pub name: String,
    /// `exact`, `lpm`, `ternary`, `range`, `optional`.
    pub match_kind: String,
}

/// Tables and actions of one BMv2 JSON.
#[derive(Debug, Clone, Default)]
pub struct Layout {
    tables: HashMap<String, Vec<KeyField>>,
    actions: HashMap<String, Vec<String>>,
}

impl Layout {
    /// Reads the layout out of a BMv2 JSON file.
    pub fn from_file(json: &Path) -> Result<Layout, Error> {
        let text = std::fs::read_to_string(json)
            .map_err(Error::io(format!("reading {}", json.display())))?;
        Layout::from_json(&text)
    }

    /// Reads the layout out of BMv2 JSON text.
    pub fn from_json(text: &str) -> Result<Layout, Error> {
        let bad = |what: &str| Error::Program(format!("BMv2 JSON: {what}"));
        let v: serde_json::Value =
            serde_json::from_str(text).map_err(|e| bad(&format!("not JSON: {e}")))?;
        let mut layout = Layout::default();
        for pipeline in v["pipelines"]
            .as_array()
            .ok_or_else(|| bad("no pipelines"))?
        {
            for table in pipeline["tables"]
                .as_array()
                .ok_or_else(|| bad("no tables"))?
            {
                let name = table["name"]
                    .as_str()
                    .ok_or_else(|| bad("a table has no name"))?;
                let keys = table["key"]
                    .as_array()
                    .map(|keys| {
                        keys.iter()
                            .map(|k| KeyField {
                                name: k["name"].as_str().unwrap_or_default().to_string(),
                                match_kind: k["match_type"].as_str().unwrap_or_default().into(),
                            })
                            .collect()
                    })
                    .unwrap_or_default();
                layout.tables.insert(name.to_string(), keys);
            }
        }
        for action in v["actions"].as_array().ok_or_else(|| bad("no actions"))? {
            let name = action["name"]
                .as_str()
                .ok_or_else(|| bad("an action has no name"))?;
            let params = action["runtime_data"]
                .as_array()
                .map(|ps| {
                    ps.iter()
                        .map(|p| p["name"].as_str().unwrap_or_default().to_string())
                        .collect()
                })
                .unwrap_or_default();
            layout.actions.entry(name.to_string()).or_insert(params);
        }
        Ok(layout)
    }

    /// The table's full name (STF may give a suffix) and key fields.
    pub fn table(&self, name: &str) -> Result<(&str, &[KeyField]), Error> {
        let (full, keys) = resolve(&self.tables, name, "table")?;
        Ok((full, keys.as_slice()))
    }

    /// The action's full name and parameter names in order.
    pub fn action(&self, name: &str) -> Result<(&str, &[String]), Error> {
        let (full, params) = resolve(&self.actions, name, "action")?;
        Ok((full, params.as_slice()))
    }
}

/// An exact name, else the one name ending in `.name`.
fn resolve<'a, T>(
    map: &'a HashMap<String, T>,
    name: &str,
    kind: &str,
) -> Result<(&'a str, &'a T), Error> {
    if let Some((k, v)) = map.get_key_value(name) {
        return Ok((k.as_str(), v));
    }
    let suffix = format!(".{name}");
    let mut found = map.iter().filter(|(k, _)| k.ends_with(&suffix));
    match (found.next(), found.next()) {
        (Some((k, v)), None) => Ok((k.as_str(), v)),
        (None, _) => Err(Error::Program(format!("no {kind} `{name}` in the program"))),
        (Some(_), Some(_)) => Err(Error::Program(format!("{kind} name `{name}` is ambiguous"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const JSON: &str = r#"{
      "pipelines": [{"name": "ingress", "tables": [
        {"name": "Ing.fwd", "key": [{"match_type": "exact", "name": "hdr.eth.dst"},
                                    {"match_type": "lpm", "name": "hdr.ip.dst"}]},
        {"name": "tbl_act", "key": []}]}],
      "actions": [{"name": "Ing.forward", "runtime_data": [{"name": "port", "bitwidth": 9}]},
                  {"name": "NoAction", "runtime_data": []}]
    }"#;

    #[test]
    fn tables_and_actions_resolve_by_full_name_or_suffix() {
        let l = Layout::from_json(JSON).unwrap();
        let (name, keys) = l.table("fwd").unwrap();
        assert_eq!(name, "Ing.fwd");
        assert_eq!(keys[1].match_kind, "lpm");
        assert_eq!(l.action("Ing.forward").unwrap().1, &["port".to_string()]);
        assert!(l.table("nope").is_err());
        assert!(Layout::from_json("{}").is_err());
    }
}
