//! Errors as they cross the HTTP boundary: `{code, message}` with a status that says whose
//! fault it was.

use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::api::ApiError;
use crate::error::Error;

/// A failed request.
#[derive(Debug)]
pub struct ApiFailure {
    pub status: StatusCode,
    pub body: ApiError,
}

impl ApiFailure {
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        ApiFailure { status, body: ApiError { code: code.to_owned(), message: message.into() } }
    }
}

/// The HTTP status of each library error.
pub fn status_of(e: &Error) -> StatusCode {
    match e {
        Error::Usage(_) | Error::Input { .. } | Error::Query(_) | Error::Io { .. } => StatusCode::BAD_REQUEST,
        Error::NotFound { .. } => StatusCode::NOT_FOUND,
        Error::Connection { .. } | Error::ConnectionLost { .. } => StatusCode::SERVICE_UNAVAILABLE,
        Error::ServerMissing { .. } | Error::Server(_) => StatusCode::INTERNAL_SERVER_ERROR,
    }
}

impl From<Error> for ApiFailure {
    fn from(e: Error) -> Self {
        ApiFailure { status: status_of(&e), body: ApiError::from(&e) }
    }
}

impl IntoResponse for ApiFailure {
    fn into_response(self) -> Response {
        (self.status, Json(self.body)).into_response()
    }
}
