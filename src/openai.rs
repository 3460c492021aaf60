//! The OpenAI-compatible endpoints a user points Provex at: the chat endpoint `ask` writes
//! Cypher with, and the embeddings endpoint of lineage confidences. One shape for both (a
//! URL, a model, a key, from the environment or the desktop settings) and one rule for where
//! requests go.

/// One kind of endpoint: its environment variables, default model and request path.
#[derive(Debug)]
pub struct Service {
    pub url_var: &'static str,
    pub model_var: &'static str,
    pub key_var: &'static str,
    /// The model used when none is named.
    pub default_model: &'static str,
    /// Where requests go, under `/v1`.
    pub path: &'static str,
}

/// Chat completions (`provex ask`).
pub const CHAT: Service = Service {
    url_var: "PROVEX_LLM_URL",
    model_var: "PROVEX_LLM_MODEL",
    key_var: "PROVEX_LLM_KEY",
    default_model: "gpt-4o-mini",
    path: "chat/completions",
};

/// Embeddings (the semantic part of lineage confidences).
pub const EMBEDDINGS: Service = Service {
    url_var: "PROVEX_EMBEDDINGS_URL",
    model_var: "PROVEX_EMBEDDINGS_MODEL",
    key_var: "PROVEX_EMBEDDINGS_KEY",
    default_model: "text-embedding-3-small",
    path: "embeddings",
};

/// An endpoint as configured.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Endpoint {
    /// A base URL (`http://host:port` or `…/v1`) or the full URL of the service's path.
    pub url: String,
    pub model: String,
    pub key: Option<String>,
}

fn non_empty(s: Option<String>) -> Option<String> {
    s.map(|s| s.trim().to_owned()).filter(|s| !s.is_empty())
}

impl Endpoint {
    /// From settings: a URL (none: no endpoint), a model (none: the service's default) and a
    /// key. Blank values count as none.
    pub fn configured(
        service: &Service,
        url: Option<String>,
        model: Option<String>,
        key: Option<String>,
    ) -> Option<Endpoint> {
        Some(Endpoint {
            url: non_empty(url)?,
            model: non_empty(model).unwrap_or_else(|| service.default_model.to_owned()),
            key: key.filter(|k| !k.is_empty()),
        })
    }

    /// From the service's environment variables (its URL is required).
    pub fn from_env(service: &Service) -> Option<Endpoint> {
        let var = |name: &str| std::env::var(name).ok();
        Endpoint::configured(service, var(service.url_var), var(service.model_var), var(service.key_var))
    }

    /// The URL the service's requests go to.
    pub fn url_for(&self, service: &Service) -> String {
        let base = self.url.trim_end_matches('/');
        if base.ends_with(&format!("/{}", service.path)) {
            base.to_owned()
        } else if base.ends_with("/v1") {
            format!("{base}/{}", service.path)
        } else {
            format!("{base}/v1/{}", service.path)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_go_under_v1_unless_the_url_names_the_path() {
        let e = |u: &str| Endpoint { url: u.into(), model: "m".into(), key: None };
        for (svc, path) in [(&CHAT, "chat/completions"), (&EMBEDDINGS, "embeddings")] {
            assert_eq!(e("http://h:1").url_for(svc), format!("http://h:1/v1/{path}"));
            assert_eq!(e("http://h:1/v1/").url_for(svc), format!("http://h:1/v1/{path}"));
            assert_eq!(e(&format!("http://h:1/v1/{path}")).url_for(svc), format!("http://h:1/v1/{path}"));
            assert_eq!(e("http://h:1/api/v1").url_for(svc), format!("http://h:1/api/v1/{path}"));
        }
    }

    #[test]
    fn settings_fill_in_the_default_model_and_drop_blanks() {
        let c = Endpoint::configured(&CHAT, Some(" http://h ".into()), Some(" ".into()), Some(String::new()));
        assert_eq!(c, Some(Endpoint { url: "http://h".into(), model: "gpt-4o-mini".into(), key: None }));
        assert_eq!(Endpoint::configured(&EMBEDDINGS, Some("  ".into()), None, None), None);
        let e =
            Endpoint::configured(&EMBEDDINGS, Some("http://h".into()), Some("m2".into()), Some("k".into()));
        assert_eq!(e.map(|e| (e.model, e.key)), Some(("m2".into(), Some("k".into()))));
    }
}
