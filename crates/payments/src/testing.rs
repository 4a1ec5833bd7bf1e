//! A local server that speaks Stripe's wire format, for tests: form-encoded requests with
//! bracketed keys, `Authorization: Bearer sk_…`, `Idempotency-Key` honoured (the same key
//! answers the first answer again), answers built from Stripe's own fixture objects, and
//! every request recorded so tests can assert exactly what was sent. Failures and delays can
//! be queued to see how callers cope.

use std::collections::{HashMap, VecDeque};
use std::net::TcpListener;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use actix_web::http::StatusCode;
use actix_web::{HttpRequest, HttpResponse, web};
use serde_json::{Value, json};

const FIXTURES: &str = include_str!("../fixtures/stripe.json");

/// One request as the server received it.
#[derive(Debug, Clone)]
pub struct Recorded {
    pub method: String,
    pub path: String,
    pub authorization: Option<String>,
    pub idempotency_key: Option<String>,
    pub stripe_version: Option<String>,
    /// The form fields in order, keys as sent (`transfer_data[destination]`).
    pub form: Vec<(String, String)>,
}

impl Recorded {
    /// The value of a form field.
    pub fn field(&self, key: &str) -> Option<&str> {
        self.form
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }
}

#[derive(Debug, Clone)]
enum Failure {
    Status(u16, String),
    Delay(Duration),
}

/// A request's form parameters, in order.
type Form = Vec<(String, String)>;

#[derive(Debug, Default)]
struct State {
    fixtures: HashMap<String, Value>,
    recorded: Vec<Recorded>,
    /// Idempotency key → the request's parameters and the answer given.
    answered: HashMap<String, (Form, (u16, Value))>,
    /// Idempotency keys of requests being answered right now.
    in_flight: std::collections::HashSet<String>,
    /// PaymentIntent → the amount refunded so far.
    refunded: HashMap<String, i64>,
    /// Every refund made, oldest first.
    refunds: Vec<Value>,
    /// Path prefix → failures to inject, first first.
    failures: Vec<(String, VecDeque<Failure>)>,
    intents: HashMap<String, Value>,
    next: u64,
}

/// The running server. Dropping it does not stop it; it lives as long as the runtime.
#[derive(Debug, Clone)]
pub struct FakeStripe {
    base_url: String,
    state: Arc<Mutex<State>>,
}

fn lock(state: &Mutex<State>) -> MutexGuard<'_, State> {
    state.lock().unwrap_or_else(PoisonError::into_inner)
}

fn now() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as i64)
}

fn stripe_error(status: u16, kind: &str, message: &str) -> (u16, Value) {
    (status, json!({"error": {"type": kind, "message": message}}))
}

impl FakeStripe {
    /// Starts the server on a free local port.
    pub fn start() -> std::io::Result<Self> {
        let fixtures: HashMap<String, Value> = serde_json::from_str(FIXTURES)
            .map_err(|e| std::io::Error::other(format!("fixtures: {e}")))?;
        let state = Arc::new(Mutex::new(State {
            fixtures,
            ..State::default()
        }));
        let listener = TcpListener::bind("127.0.0.1:0")?;
        let addr = listener.local_addr()?;
        let shared = web::Data::from(Arc::clone(&state));
        let server = actix_web::HttpServer::new(move || {
            actix_web::App::new()
                .app_data(shared.clone())
                .default_service(web::to(handle))
        })
        .workers(1)
        .disable_signals()
        .listen(listener)?
        .run();
        tokio::spawn(server);
        Ok(Self {
            base_url: format!("http://{addr}"),
            state,
        })
    }

    /// What to configure as the Stripe API base.
    pub fn base_url(&self) -> &str {
        &self.base_url
    }

    /// Every request received so far, oldest first.
    pub fn requests(&self) -> Vec<Recorded> {
        lock(&self.state).recorded.clone()
    }

    /// Requests to exactly `path` with `method`.
    pub fn requests_to(&self, method: &str, path: &str) -> Vec<Recorded> {
        self.requests()
            .into_iter()
            .filter(|r| r.method == method && r.path == path)
            .collect()
    }

    /// The next request whose path starts with `prefix` gets `status` and a Stripe error.
    pub fn fail_next(&self, prefix: &str, status: u16, message: &str) {
        self.queue(prefix, Failure::Status(status, message.to_owned()));
    }

    /// The next request whose path starts with `prefix` is answered only after `delay`.
    pub fn delay_next(&self, prefix: &str, delay: Duration) {
        self.queue(prefix, Failure::Delay(delay));
    }

    fn queue(&self, prefix: &str, failure: Failure) {
        let mut state = lock(&self.state);
        match state.failures.iter_mut().find(|(p, _)| p == prefix) {
            Some((_, queue)) => queue.push_back(failure),
            None => state
                .failures
                .push((prefix.to_owned(), VecDeque::from([failure]))),
        }
    }
}

/// `metadata[key]=value` fields as an object.
fn metadata(form: &[(String, String)]) -> Value {
    let map: serde_json::Map<String, Value> = form
        .iter()
        .filter_map(|(k, v)| {
            let key = k.strip_prefix("metadata[")?.strip_suffix(']')?;
            Some((key.to_owned(), Value::from(v.as_str())))
        })
        .collect();
    Value::Object(map)
}

fn field<'a>(form: &'a [(String, String)], key: &str) -> Option<&'a str> {
    form.iter().find(|(k, _)| k == key).map(|(_, v)| v.as_str())
}

fn amount(form: &[(String, String)], key: &str) -> Option<i64> {
    field(form, key).and_then(|v| v.parse().ok())
}

async fn handle(
    req: HttpRequest,
    body: web::Bytes,
    state: web::Data<Mutex<State>>,
) -> HttpResponse {
    let header = |name: &str| {
        req.headers()
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    // A GET's parameters are in its query, a POST's in its body.
    let form: Vec<(String, String)> = if body.is_empty() {
        serde_urlencoded::from_str(req.query_string()).unwrap_or_default()
    } else {
        serde_urlencoded::from_bytes(&body).unwrap_or_default()
    };
    let recorded = Recorded {
        method: req.method().to_string(),
        path: req.path().to_owned(),
        authorization: header("authorization"),
        idempotency_key: header("idempotency-key"),
        stripe_version: header("stripe-version"),
        form: form.clone(),
    };
    let failure = {
        let mut state = lock(&state);
        state.recorded.push(recorded.clone());
        state
            .failures
            .iter_mut()
            .find(|(prefix, queue)| recorded.path.starts_with(prefix.as_str()) && !queue.is_empty())
            .and_then(|(_, queue)| queue.pop_front())
    };
    // As Stripe does: a second request with a key whose first is still being answered is
    // refused with 409, not answered twice.
    if let Some(key) = &recorded.idempotency_key {
        let mut state = lock(&state);
        if !state.answered.contains_key(key) && !state.in_flight.insert(key.clone()) {
            let (status, answer) = stripe_error(
                409,
                "idempotency_error",
                "There is currently another in-progress request using this Idempotent Key.",
            );
            return HttpResponse::build(
                StatusCode::from_u16(status).unwrap_or(StatusCode::CONFLICT),
            )
            .content_type("application/json")
            .body(answer.to_string());
        }
    }
    let (status, answer) = match failure {
        Some(Failure::Status(status, message)) => stripe_error(
            status,
            if status >= 500 {
                "api_error"
            } else {
                "invalid_request_error"
            },
            &message,
        ),
        Some(Failure::Delay(delay)) => {
            tokio::time::sleep(delay).await;
            answer(&recorded, &state)
        }
        None => answer(&recorded, &state),
    };
    if let Some(key) = &recorded.idempotency_key {
        lock(&state).in_flight.remove(key);
    }
    HttpResponse::build(StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR))
        .content_type("application/json")
        .body(answer.to_string())
}

fn answer(request: &Recorded, state: &Mutex<State>) -> (u16, Value) {
    let authorised = request
        .authorization
        .as_deref()
        .is_some_and(|a| a.starts_with("Bearer sk_"));
    if !authorised {
        return stripe_error(401, "invalid_request_error", "Invalid API Key provided");
    }
    let mut state = lock(state);
    if let Some(key) = &request.idempotency_key
        && let Some((form, previous)) = state.answered.get(key)
    {
        if *form != request.form {
            return stripe_error(
                400,
                "idempotency_error",
                "Keys for idempotent requests can only be used with the same parameters they were first used with.",
            );
        }
        return previous.clone();
    }
    let answered = respond(request, &mut state);
    if let Some(key) = &request.idempotency_key
        && answered.0 < 500
    {
        state
            .answered
            .insert(key.clone(), (request.form.clone(), answered.clone()));
    }
    answered
}

fn respond(request: &Recorded, state: &mut State) -> (u16, Value) {
    state.next += 1;
    let n = state.next;
    let form = &request.form;
    let fixture = |name: &str| state.fixtures.get(name).cloned().unwrap_or(Value::Null);
    let path: Vec<&str> = request.path.trim_matches('/').split('/').collect();
    match (request.method.as_str(), path.as_slice()) {
        ("POST", ["v1", "accounts"]) => {
            let mut account = fixture("account");
            account["id"] = json!(format!("acct_fake{n:06}"));
            account["type"] = json!("express");
            account["charges_enabled"] = json!(false);
            account["payouts_enabled"] = json!(false);
            account["details_submitted"] = json!(false);
            account["metadata"] = metadata(form);
            (200, account)
        }
        ("POST", ["v1", "account_links"]) => {
            let Some(account) = field(form, "account") else {
                return stripe_error(
                    400,
                    "invalid_request_error",
                    "Missing required param: account.",
                );
            };
            let mut link = fixture("account_link");
            link["url"] = json!(format!("https://connect.stripe.com/setup/e/{account}/{n}"));
            link["created"] = json!(now());
            link["expires_at"] = json!(now() + 300);
            (200, link)
        }
        ("POST", ["v1", "payment_intents"]) => {
            let (Some(amount), Some(currency)) = (amount(form, "amount"), field(form, "currency"))
            else {
                return stripe_error(
                    400,
                    "invalid_request_error",
                    "Missing required param: amount or currency.",
                );
            };
            let id = format!("pi_fake{n:06}");
            let mut intent = fixture("payment_intent");
            intent["id"] = json!(id);
            intent["amount"] = json!(amount);
            intent["currency"] = json!(currency);
            intent["application_fee_amount"] =
                json!(amount_or_null(form, "application_fee_amount"));
            intent["transfer_data"] = match field(form, "transfer_data[destination]") {
                Some(destination) => json!({"destination": destination}),
                None => Value::Null,
            };
            intent["metadata"] = metadata(form);
            intent["client_secret"] = json!(format!("{id}_secret_fake{n}"));
            intent["status"] = json!("requires_payment_method");
            intent["created"] = json!(now());
            for cleared in [
                "last_payment_error",
                "next_action",
                "processing",
                "canceled_at",
            ] {
                intent[cleared] = Value::Null;
            }
            state.intents.insert(id, intent.clone());
            (200, intent)
        }
        ("POST", ["v1", "payment_intents", id, "cancel"]) => match state.intents.get_mut(*id) {
            Some(intent) => {
                intent["status"] = json!("canceled");
                intent["canceled_at"] = json!(now());
                (200, intent.clone())
            }
            None => stripe_error(
                404,
                "invalid_request_error",
                &format!("No such payment_intent: '{id}'"),
            ),
        },
        ("GET", ["v1", "refunds"]) => {
            let intent = field(form, "payment_intent");
            let data: Vec<Value> = state
                .refunds
                .iter()
                .rev()
                .filter(|r| intent.is_none_or(|i| r["payment_intent"] == i))
                .cloned()
                .collect();
            (
                200,
                json!({"object": "list", "url": "/v1/refunds", "has_more": false, "data": data}),
            )
        }
        ("POST", ["v1", "refunds"]) => {
            let Some(intent) = field(form, "payment_intent") else {
                return stripe_error(
                    400,
                    "invalid_request_error",
                    "Missing required param: payment_intent.",
                );
            };
            let Some(paid) = state.intents.get(intent).and_then(|i| i["amount"].as_i64()) else {
                return stripe_error(
                    404,
                    "invalid_request_error",
                    &format!("No such payment_intent: '{intent}'"),
                );
            };
            let amount = amount(form, "amount").unwrap_or(paid);
            let before = state.refunded.get(intent).copied().unwrap_or(0);
            if before + amount > paid {
                return stripe_error(
                    400,
                    "invalid_request_error",
                    &format!(
                        "Refund amount ({amount}) is greater than unrefunded amount on charge ({}).",
                        paid - before
                    ),
                );
            }
            state.refunded.insert(intent.to_owned(), before + amount);
            let mut refund = fixture("refund");
            refund["id"] = json!(format!("re_fake{n:06}"));
            refund["amount"] = json!(amount);
            refund["payment_intent"] = json!(intent);
            refund["metadata"] = metadata(form);
            refund["status"] = json!("succeeded");
            refund["created"] = json!(now());
            state.refunds.push(refund.clone());
            (200, refund)
        }
        _ => stripe_error(
            404,
            "invalid_request_error",
            &format!(
                "Unrecognized request URL ({} {}).",
                request.method, request.path
            ),
        ),
    }
}

fn amount_or_null(form: &[(String, String)], key: &str) -> Value {
    amount(form, key).map_or(Value::Null, Value::from)
}
