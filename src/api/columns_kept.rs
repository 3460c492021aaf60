//! A view's columns as a live view keeps them between requests: built once, encoded to JSON
//! once, and sent as that JSON until the view changes (a large graph's view is opened again
//! and again, by every viewer and on every reload, and encoding it is most of its cost).

use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};
use serde_json::value::RawValue;

use super::ViewColumns;

/// See the module docs. Either form serialises to the same JSON; deserialised, it is built.
#[derive(Debug, Clone)]
pub enum Columns {
    /// Columns as built.
    Built(Box<ViewColumns>),
    /// The JSON of built columns, shared with the view that keeps it.
    Json(Arc<RawValue>),
}

impl Columns {
    /// The JSON of these columns, to keep and send again.
    pub fn to_json(&self) -> serde_json::Result<Arc<RawValue>> {
        match self {
            Columns::Built(c) => Ok(Arc::from(serde_json::value::to_raw_value(&**c)?)),
            Columns::Json(j) => Ok(j.clone()),
        }
    }

    /// The columns as built (read back from their JSON when kept as JSON).
    pub fn built(&self) -> Result<std::borrow::Cow<'_, ViewColumns>, String> {
        match self {
            Columns::Built(c) => Ok(std::borrow::Cow::Borrowed(&**c)),
            Columns::Json(j) => serde_json::from_str(j.get())
                .map(std::borrow::Cow::Owned)
                .map_err(|e| format!("kept columns: {e}")),
        }
    }
}

impl From<ViewColumns> for Columns {
    fn from(c: ViewColumns) -> Columns {
        Columns::Built(Box::new(c))
    }
}

impl PartialEq for Columns {
    fn eq(&self, other: &Columns) -> bool {
        match (self.built(), other.built()) {
            (Ok(a), Ok(b)) => a == b,
            _ => false,
        }
    }
}

impl Serialize for Columns {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Columns::Built(c) => c.serialize(s),
            Columns::Json(j) => j.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for Columns {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Columns, D::Error> {
        ViewColumns::deserialize(d).map(Columns::from)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn columns() -> ViewColumns {
        ViewColumns {
            strings: vec![String::new(), "Agent".into(), "é \"quoted\" \\ \u{1}".into()],
            nodes: super::super::NodeColumns {
                id: vec!["a".into(), "b\n".into()],
                label: vec![1, 2],
                x: vec![0.5, -1e300],
                ..Default::default()
            },
            ..Default::default()
        }
    }

    #[test]
    fn kept_as_json_it_serialises_as_built_and_reads_back_the_same() {
        let built = Columns::from(columns());
        let kept = Columns::Json(built.to_json().unwrap());
        let a = serde_json::to_string(&built).unwrap();
        assert_eq!(serde_json::to_string(&kept).unwrap(), a);
        // Inside another value too, and through serde_json's own tree.
        let wrap = |c: &Columns| serde_json::to_value(serde_json::json!({ "columns": c })).unwrap();
        assert_eq!(wrap(&built), wrap(&kept));
        assert_eq!(kept.built().unwrap().into_owned(), columns());
        assert_eq!(built, kept);
        let back: Columns = serde_json::from_str(&a).unwrap();
        assert!(matches!(back, Columns::Built(ref c) if **c == columns()));
    }
}
