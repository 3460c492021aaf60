//! Errors as they cross the HTTP boundary: `{code, message}` with the status the code
//! declares (`api::ErrorCode::http_status`), which says whose fault it was.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use crate::api::{ApiError, ErrorCode};
use crate::error::Error;

/// A failed request.
#[derive(Debug)]
pub struct ApiFailure {
    pub status: StatusCode,
    pub body: ApiError,
}

impl ApiFailure {
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        let status = StatusCode::from_u16(code.http_status()).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        ApiFailure { status, body: ApiError::new(code, message) }
    }

    pub fn from_error(e: &Error) -> Self {
        ApiFailure::new(e.code(), e.to_string())
    }
}

impl From<Error> for ApiFailure {
    fn from(e: Error) -> Self {
        ApiFailure::from_error(&e)
    }
}

impl IntoResponse for ApiFailure {
    fn into_response(self) -> Response {
        let busy = self.body.code == ErrorCode::Busy;
        let mut res = (self.status, Json(self.body)).into_response();
        if busy {
            // A limit of the server, not of the request: it may be sent again shortly.
            res.headers_mut().insert(header::RETRY_AFTER, HeaderValue::from_static("1"));
        }
        res
    }
}
