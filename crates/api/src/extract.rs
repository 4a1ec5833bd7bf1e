//! Extractors: the JSON body (strict, size-limited, errors that name the field), the query
//! (errors that name the field), the authenticated caller, and proof of a role in the
//! organisation named by the path.

use std::future::Future;
use std::marker::PhantomData;
use std::pin::Pin;

use actix_web::dev::Payload;
use actix_web::http::header;
use actix_web::{FromRequest, HttpRequest, web};
use app::{App, AppError, Caller};
use domain::{OrgId, Role};
use futures_util::StreamExt;
use serde::de::DeserializeOwned;

use crate::error::{ApiError, code};

/// A request's query as `T`, read as `web::Query` reads it, but a malformed one is a 400
/// `invalid_parameter` naming its field (`query: min_vram_gb: invalid digit found in string`).
#[derive(Debug)]
pub struct Query<T>(pub T);

impl<T> Query<T> {
    pub fn into_inner(self) -> T {
        self.0
    }
}

impl<T> std::ops::Deref for Query<T> {
    type Target = T;

    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T: DeserializeOwned> FromRequest for Query<T> {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(
            parse_query(req.query_string())
                .map(Query)
                .map_err(|problem| {
                    ApiError::new(code::INVALID_PARAMETER, format!("query: {problem}"))
                }),
        )
    }
}

/// What is wrong with a query: the field it names, when there is one, and the problem.
#[derive(Debug)]
pub struct QueryProblem {
    pub field: Option<String>,
    pub message: String,
}

impl std::fmt::Display for QueryProblem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match &self.field {
            Some(field) => write!(f, "{field}: {}", self.message),
            None => f.write_str(&self.message),
        }
    }
}

/// Parses a query string (`a=1&b=x`) as `T`; `Err` says what is wrong, naming the field
/// when there is one.
pub fn parse_query<T: DeserializeOwned>(query: &str) -> Result<T, QueryProblem> {
    let deserializer =
        serde_urlencoded::Deserializer::new(form_urlencoded::parse(query.as_bytes()));
    serde_path_to_error::deserialize(deserializer).map_err(|e| {
        let field = e.path().to_string();
        QueryProblem {
            field: (field != ".").then_some(field),
            message: e.into_inner().to_string(),
        }
    })
}

/// The largest body a route accepts, from the configuration.
#[derive(Debug, Clone, Copy)]
pub struct BodyLimit(pub usize);

/// A JSON request body. Refuses a non-JSON content type (415), a body over the limit (413),
/// bytes that are not JSON (400), and JSON of the wrong shape (422 naming the field).
#[derive(Debug)]
pub struct Json<T>(pub T);

impl<T: DeserializeOwned + 'static> FromRequest for Json<T> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let read = read_json(req, payload, 0);
        Box::pin(async move { read.await.map(Json) })
    }
}

/// A JSON request body of a route that takes more than the configured limit: at least `MIB`
/// MiB (an agent's GPU samples), refused as [`Json`] refuses otherwise.
#[derive(Debug)]
pub struct JsonUpTo<T, const MIB: usize>(pub T);

impl<T: DeserializeOwned + 'static, const MIB: usize> FromRequest for JsonUpTo<T, MIB> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let read = read_json(req, payload, MIB * 1024 * 1024);
        Box::pin(async move { read.await.map(JsonUpTo) })
    }
}

/// Reads a JSON body of at most the configured limit (or `at_least` bytes, when more).
fn read_json<T: DeserializeOwned + 'static>(
    req: &HttpRequest,
    payload: &mut Payload,
    at_least: usize,
) -> impl Future<Output = Result<T, ApiError>> + 'static {
    let limit = req
        .app_data::<BodyLimit>()
        .map_or(256 * 1024, |limit| limit.0)
        .max(at_least);
    let content_type_ok = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.split(';').next())
        .map(|mime| {
            let mime = mime.trim().to_ascii_lowercase();
            mime == "application/json" || mime.ends_with("+json")
        })
        .unwrap_or(false);
    let declared_too_large = req
        .headers()
        .get(header::CONTENT_LENGTH)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse::<usize>().ok())
        .is_some_and(|len| len > limit);
    let mut payload = payload.take();
    async move {
        if !content_type_ok {
            return Err(ApiError::new(
                code::UNSUPPORTED_MEDIA_TYPE,
                "send the body as JSON with Content-Type: application/json",
            ));
        }
        let too_large = || {
            ApiError::new(
                code::PAYLOAD_TOO_LARGE,
                format!("the body may be at most {limit} bytes"),
            )
        };
        if declared_too_large {
            return Err(too_large());
        }
        let mut body = web::BytesMut::new();
        while let Some(chunk) = payload.next().await {
            let chunk = chunk.map_err(|e| {
                ApiError::new(code::MALFORMED_JSON, format!("reading the body: {e}"))
            })?;
            if body.len() + chunk.len() > limit {
                return Err(too_large());
            }
            body.extend_from_slice(&chunk);
        }
        parse_json(&body)
    }
}

/// Parses `body` as `T`, naming the field on a shape error.
pub fn parse_json<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let mut deserializer = serde_json::Deserializer::from_slice(body);
    let parsed: Result<T, _> = serde_path_to_error::deserialize(&mut deserializer);
    let value = parsed.map_err(|err| {
        let path = err.path().to_string();
        let inner = err.into_inner();
        match inner.classify() {
            serde_json::error::Category::Data => {
                let message = inner.to_string();
                let message = message
                    .split(" at line ")
                    .next()
                    .unwrap_or(&message)
                    .to_owned();
                // serde reports a missing field at its parent; name the field itself.
                let field = match missing_field(&message) {
                    Some(name) if path == "." => name.to_owned(),
                    Some(name) => format!("{path}.{name}"),
                    None => path,
                };
                ApiError::field(field, message)
            }
            _ => ApiError::new(
                code::MALFORMED_JSON,
                format!("the body is not JSON: {inner}"),
            ),
        }
    })?;
    deserializer
        .end()
        .map_err(|e| ApiError::new(code::MALFORMED_JSON, format!("the body is not JSON: {e}")))?;
    Ok(value)
}

fn missing_field(message: &str) -> Option<&str> {
    message
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split('`').next())
}

/// The authenticated caller: `Authorization: Bearer <access token or API key>`.
#[derive(Debug, Clone, Copy)]
pub struct Auth(pub Caller);

impl FromRequest for Auth {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        let app = req.app_data::<web::Data<App>>().cloned();
        let bearer = bearer_token(req);
        let scope = required_scope(req);
        let network = client_network(req);
        Box::pin(async move {
            let app =
                app.ok_or_else(|| ApiError::from(AppError::Internal("no app data".into())))?;
            let bearer = bearer?;
            let mut caller = app.authenticate(&bearer).await?;
            caller.network = Some(network);
            if let Some(granted) = caller.key_scopes() {
                match scope {
                    Some(needed) if granted.contains(needed) => {}
                    Some(needed) => {
                        return Err(AppError::ScopeRequired(format!(
                            "this needs the {} scope, which this key does not have",
                            needed.as_str()
                        ))
                        .into());
                    }
                    None => {
                        return Err(AppError::ScopeRequired(
                            "an organisation's API key cannot do this; sign in".to_owned(),
                        )
                        .into());
                    }
                }
            }
            Ok(Auth(caller))
        })
    }
}

/// The client's network, what address-keyed budgets count by: the peer, or behind a trusted
/// proxy the client it forwarded for (see `trusted_proxies`); an IPv4 address itself, an IPv6
/// address's `/ipv6_prefix_len` (see `ipv6_prefix_len`).
#[derive(Debug, Clone, Copy)]
pub struct ClientNetwork(pub ipnet::IpNet);

impl FromRequest for ClientNetwork {
    type Error = ApiError;
    type Future = std::future::Ready<Result<Self, ApiError>>;

    fn from_request(req: &HttpRequest, _: &mut Payload) -> Self::Future {
        std::future::ready(Ok(ClientNetwork(client_network(req))))
    }
}

/// The client network of a request (see [`ClientNetwork`]).
pub fn client_network(req: &HttpRequest) -> ipnet::IpNet {
    let peer = req
        .peer_addr()
        .map_or(std::net::IpAddr::from([127, 0, 0, 1]), |a| a.ip());
    let forwarded = req
        .headers()
        .get("x-forwarded-for")
        .and_then(|v| v.to_str().ok());
    match req.app_data::<web::Data<App>>() {
        Some(app) => app.client_network(peer, forwarded),
        None => peer.into(),
    }
}

/// The caller when a bearer credential is sent (an invalid one is refused), `None` when none
/// is: for public routes that show more to some callers.
#[derive(Debug, Clone, Copy)]
pub struct MaybeAuth(pub Option<Caller>);

/// The request's `Idempotency-Key` header as sent (empty when absent or not text: the use
/// case refuses it, naming the header).
pub fn idempotency_key(req: &HttpRequest) -> &str {
    req.headers()
        .get("idempotency-key")
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default()
}

impl FromRequest for MaybeAuth {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        if !req.headers().contains_key(header::AUTHORIZATION) {
            return Box::pin(async { Ok(MaybeAuth(None)) });
        }
        let auth = Auth::from_request(req, payload);
        Box::pin(async move { Ok(MaybeAuth(Some(auth.await?.0))) })
    }
}

/// The scope an organisation's API key needs for this route, `None` when no key may use it
/// (accounts, organisations, keys, bookings, payouts: those take a signed-in person).
fn required_scope(req: &HttpRequest) -> Option<domain::KeyScope> {
    use actix_web::http::Method;
    use domain::KeyScope;
    let pattern = req.match_pattern().unwrap_or_default();
    let path = pattern.strip_prefix("/v1").unwrap_or(&pattern);
    let method = req.method();
    if path == "/access/introspect" {
        return Some(KeyScope::AccessIntrospect);
    }
    let person_only = path == "/orgs"
        || ["/auth/", "/api-keys", "/me", "/bookings", "/invitations/"]
            .iter()
            .any(|p| path.starts_with(p))
        || (path.starts_with("/orgs/")
            && [
                "/members",
                "/invitations",
                "/api-keys",
                "/payouts",
                "/earnings",
            ]
            .iter()
            .any(|p| path.contains(p)));
    if person_only {
        return None;
    }
    // What a listing's agent does on its machine's behalf (`/listings/{id}/agent/…`); reading
    // the agent's report back (`GET /listings/{id}/agent`) is an ordinary read.
    if path.starts_with("/listings/") && path.contains("/agent/") {
        return Some(KeyScope::Agent);
    }
    if *method == Method::GET || *method == Method::HEAD {
        return Some(KeyScope::Read);
    }
    if path.ends_with("/verifications")
        || path.ends_with("/preflight")
        || path.ends_with("/cancel") && path.starts_with("/verifications/")
    {
        return Some(KeyScope::VerificationsWrite);
    }
    if path.starts_with("/listings") {
        return Some(KeyScope::ListingsWrite);
    }
    None
}

pub(crate) fn bearer_token(req: &HttpRequest) -> Result<String, ApiError> {
    let Some(value) = req.headers().get(header::AUTHORIZATION) else {
        return Err(AppError::Unauthenticated.into());
    };
    let value = value.to_str().map_err(|_| {
        ApiError::from(AppError::InvalidToken(
            "the Authorization header is not text",
        ))
    })?;
    match value.split_once(' ') {
        Some((scheme, token))
            if scheme.eq_ignore_ascii_case("bearer") && !token.trim().is_empty() =>
        {
            Ok(token.trim().to_owned())
        }
        _ => {
            Err(AppError::InvalidToken("the Authorization header must be `Bearer <token>`").into())
        }
    }
}

/// A role an [`InOrg`] extractor requires.
pub trait RequiredRole {
    const ROLE: Role;
}

/// Requires membership.
#[derive(Debug)]
pub struct Member;
impl RequiredRole for Member {
    const ROLE: Role = Role::Member;
}

/// Requires the admin role (or owner).
#[derive(Debug)]
pub struct Admin;
impl RequiredRole for Admin {
    const ROLE: Role = Role::Admin;
}

/// Proof that the caller holds at least `R` in the organisation whose id is the `{id}` path
/// segment. A handler that takes `InOrg<Admin>` cannot run for anyone else.
#[derive(Debug)]
pub struct InOrg<R> {
    pub caller: Caller,
    pub org_id: OrgId,
    /// The caller's actual role (at least `R::ROLE`).
    pub role: Role,
    _required: PhantomData<R>,
}

impl<R: RequiredRole + 'static> FromRequest for InOrg<R> {
    type Error = ApiError;
    type Future = Pin<Box<dyn Future<Output = Result<Self, ApiError>>>>;

    fn from_request(req: &HttpRequest, payload: &mut Payload) -> Self::Future {
        let auth = Auth::from_request(req, payload);
        let app = req.app_data::<web::Data<App>>().cloned();
        let org_id = req.match_info().get("id").map(str::parse::<OrgId>);
        Box::pin(async move {
            let Auth(caller) = auth.await?;
            let app =
                app.ok_or_else(|| ApiError::from(AppError::Internal("no app data".into())))?;
            let org_id = match org_id {
                Some(Ok(id)) => id,
                _ => {
                    return Err(ApiError::new(
                        code::INVALID_PARAMETER,
                        "id: the organisation id must be a UUID",
                    ));
                }
            };
            let role = app.require_role(caller, org_id, R::ROLE).await?;
            Ok(InOrg {
                caller,
                org_id,
                role,
                _required: PhantomData,
            })
        })
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Body {
        email: String,
        inner: Inner,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct Inner {
        count: u32,
    }

    #[test]
    fn shape_errors_name_the_field() {
        let err = parse_json::<Body>(br#"{"inner": {"count": 1}}"#).unwrap_err();
        assert_eq!(err.problem().errors[0].field, "email");
        let err = parse_json::<Body>(br#"{"email": "a", "inner": {"count": -1}}"#).unwrap_err();
        assert_eq!(err.problem().errors[0].field, "inner.count");
        let err = parse_json::<Body>(br#"{"email": "a", "inner": {}}"#).unwrap_err();
        assert_eq!(err.problem().errors[0].field, "inner.count");
        let err = parse_json::<Body>(br#"{"email": 5, "inner": {"count": 1}}"#).unwrap_err();
        assert_eq!(err.problem().errors[0].field, "email");
    }

    #[test]
    fn broken_json_is_a_400() {
        for body in [
            &b"{"[..],
            b"not json",
            br#"{"email": "a", "inner": {"count": 1}} trailing"#,
        ] {
            let err = parse_json::<Body>(body).unwrap_err();
            assert_eq!(err.code().code, "malformed_json", "{body:?}");
        }
    }
}
