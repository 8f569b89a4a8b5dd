//! The routes of `tuios web`, and the gate every request passes: the Host it was sent to, the
//! session cookie, and (for upgrades and form posts) the Origin.
//!
//! | route | without the cookie | with it |
//! |---|---|---|
//! | `GET /` | the sign-in page (or, with `?token=`, the exchange) | the app |
//! | `POST /login` | token (form field) exchanged for the cookie | same |
//! | `GET /assets/NAME` | the stylesheet only; 401 | the page's files |
//! | `GET /api/sessions` | 401 | the daemon's sessions |
//! | `GET /ws` | 401, never upgraded | the attach (Origin must be ours) |

use std::net::TcpListener;
use std::path::PathBuf;
use std::sync::Arc;

use actix_web::http::header::{self, HeaderValue};
use actix_web::http::StatusCode;
use actix_web::{middleware, web, App, HttpRequest, HttpResponse, HttpServer};
use serde::Deserialize;
use serde_json::{json, Value};

use super::shares::{Share, ShareBook};
use super::{assets, auth, bridge};
use crate::failure::Failure;

/// What the server was started with.
pub struct Config {
    pub token: auth::Secret,
    pub socket: PathBuf,
    pub port: u16,
    pub loopback_only: bool,
    /// How long a silent browser stays attached.
    pub silence_limit: std::time::Duration,
    /// The state directory, where the shared links are kept.
    pub state: PathBuf,
}

/// Shared by every worker.
pub struct ServerState {
    token: auth::Secret,
    /// The cookie value handed out for the token: random per server process, so a cookie
    /// never holds the token itself and a restart signs every browser out.
    cookie: auth::Secret,
    cookie_name: String,
    tls: bool,
    hosts: auth::HostPolicy,
    pub socket: PathBuf,
    /// Attaches running now (see [`bridge::MAX_ATTACHES`]).
    attaches: Arc<std::sync::atomic::AtomicUsize>,
    silence_limit: std::time::Duration,
    /// Links made with `tuios web --share`: one session each, maybe read-only.
    pub shares: Arc<ShareBook>,
}

/// Content-Security-Policy for every response: scripts only from our own files (no inline
/// script, no eval), connections only back to us, never framed. Inline *styles* are allowed:
/// xterm.js sizes its cells with a <style> element it writes at run time; a style cannot run
/// code.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self' 'unsafe-inline'; \
                   img-src 'self' data:; font-src 'self'; connect-src 'self'; base-uri 'none'; \
                   form-action 'self'; frame-ancestors 'none'";

/// Run the server until SIGINT/SIGTERM.
pub fn serve(
    listener: TcpListener,
    tls: Option<rustls::ServerConfig>,
    config: Config,
) -> Result<(), Failure> {
    let cookie = auth::new_secret()
        .map_err(|e| Failure::msg(format!("cannot make a session secret: {e}")))?;
    let state = Arc::new(ServerState {
        token: config.token,
        cookie,
        cookie_name: auth::cookie_name(config.port, tls.is_some()),
        tls: tls.is_some(),
        hosts: auth::HostPolicy {
            port: config.port,
            loopback_only: config.loopback_only,
        },
        socket: config.socket,
        attaches: Arc::default(),
        silence_limit: config.silence_limit,
        shares: Arc::new(ShareBook::new(config.state)),
    });
    let data = web::Data::from(state);
    let system = actix_web::rt::System::new();
    system.block_on(async move {
        let server = HttpServer::new(move || {
            App::new()
                .app_data(data.clone())
                .app_data(web::FormConfig::default().limit(4096))
                .wrap(
                    middleware::DefaultHeaders::new()
                        .add((header::CONTENT_SECURITY_POLICY, CSP))
                        .add((header::X_FRAME_OPTIONS, "DENY"))
                        .add((header::X_CONTENT_TYPE_OPTIONS, "nosniff"))
                        .add((header::REFERRER_POLICY, "no-referrer"))
                        .add(("Cross-Origin-Opener-Policy", "same-origin"))
                        .add(("Cross-Origin-Resource-Policy", "same-origin"))
                        .add((header::CACHE_CONTROL, "no-store")),
                )
                .route("/", web::get().to(index))
                .route("/login", web::post().to(login))
                .route("/assets/{name}", web::get().to(asset))
                .route("/api/sessions", web::get().to(sessions))
                .route("/ws", web::get().to(websocket))
                .default_service(web::to(not_found))
        })
        // The attaches run on threads of their own; one worker carries the sockets.
        .workers(1)
        // A keystroke's echo is a small write: without this, Nagle's algorithm holds it until
        // the browser's delayed ACK (tens of milliseconds to 200).
        .tcp_nodelay(true)
        .shutdown_timeout(2);
        let server = match tls {
            Some(cfg) => server.listen_rustls_0_23(listener, cfg),
            None => server.listen(listener),
        }
        .map_err(|e| Failure::msg(format!("cannot start the web server: {e}")))?;
        server
            .run()
            .await
            .map_err(|e| Failure::msg(format!("the web server failed: {e}")))
    })
}

/// A JSON error in the envelope the daemon uses: `{"error":{code,message,hint?}}`.
fn error(status: StatusCode, code: &str, message: &str, hint: Option<&str>) -> HttpResponse {
    let mut err = json!({"code": code, "message": message});
    if let Some(h) = hint {
        err["hint"] = json!({ "detail": h });
    }
    HttpResponse::build(status).json(json!({ "error": err }))
}

/// How far a request got through the gate.
enum Gate {
    /// Sent to a Host we do not serve (DNS rebinding, a wrong name): refused outright.
    BadHost,
    /// Right host, no valid cookie.
    Anonymous,
    /// Signed in with the server's own token: every session.
    Signed,
    /// Signed in through a shared link: its one session, read-only if it says so.
    Shared(Share),
}

impl ServerState {
    fn host<'a>(&self, req: &'a HttpRequest) -> &'a str {
        req.headers()
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("")
    }

    fn gate(&self, req: &HttpRequest) -> Gate {
        if !self.hosts.allows(self.host(req)) {
            return Gate::BadHost;
        }
        let cookies: Vec<&str> = req
            .headers()
            .get_all(header::COOKIE)
            .filter_map(|h| h.to_str().ok())
            .filter_map(|h| auth::cookie_value(h, &self.cookie_name))
            .collect();
        if cookies
            .iter()
            .any(|v| auth::constant_time_eq(v.as_bytes(), self.cookie.as_bytes()))
        {
            return Gate::Signed;
        }
        match cookies.iter().find_map(|v| self.shares.by_cookie(v)) {
            Some(share) => Gate::Shared(share),
            None => Gate::Anonymous,
        }
    }

    /// Whether the request's Origin is the page's own.
    fn same_origin(&self, req: &HttpRequest) -> bool {
        let origin = req
            .headers()
            .get(header::ORIGIN)
            .and_then(|h| h.to_str().ok());
        auth::origin_matches(origin, self.host(req), self.tls)
    }

    fn token_ok(&self, given: &str) -> bool {
        auth::constant_time_eq(given.trim().as_bytes(), self.token.as_bytes())
    }

    /// Signs in with `given`, the server's token or a shared link's; None when it is neither.
    fn sign_in_with(&self, given: &str) -> Option<HttpResponse> {
        if self.token_ok(given) {
            return Some(self.signed_in(&self.cookie));
        }
        let share = self.shares.by_token(given)?;
        match self.shares.sign_in(&share) {
            Ok(cookie) => {
                tracing::info!(session = %share.session, read_only = share.read_only, "signed in through a shared link");
                Some(self.signed_in(&cookie))
            }
            Err(why) => {
                tracing::error!("{why}");
                None
            }
        }
    }

    /// The token was right: a redirect to the app carrying the cookie. The redirect also
    /// takes the token out of the address bar and the history.
    fn signed_in(&self, cookie: &str) -> HttpResponse {
        HttpResponse::SeeOther()
            .insert_header((header::LOCATION, "/"))
            .insert_header((
                header::SET_COOKIE,
                auth::set_cookie(&self.cookie_name, cookie, self.tls),
            ))
            .finish()
    }
}

fn bad_host() -> HttpResponse {
    error(
        StatusCode::MISDIRECTED_REQUEST,
        "wrong_host",
        "this tuios web server answers only to 127.0.0.1, localhost and [::1] with its port",
        Some("open the URL tuios web printed (tuios web --url shows it again)"),
    )
}

fn html(status: StatusCode, body: String) -> HttpResponse {
    HttpResponse::build(status)
        .content_type("text/html; charset=utf-8")
        .body(body)
}

fn login_page(status: StatusCode, message: &str) -> HttpResponse {
    html(status, assets::LOGIN_HTML.replace("{{MESSAGE}}", message))
}

#[derive(Deserialize)]
struct TokenQuery {
    token: Option<String>,
}

async fn index(req: HttpRequest, state: web::Data<ServerState>) -> HttpResponse {
    // Parsed here, after nothing else: a malformed query is a plain sign-in page, not an error.
    let query = web::Query::<TokenQuery>::from_query(req.query_string())
        .map(web::Query::into_inner)
        .unwrap_or(TokenQuery { token: None });
    match state.gate(&req) {
        Gate::BadHost => bad_host(),
        Gate::Signed | Gate::Shared(_) if query.token.is_none() => {
            html(StatusCode::OK, assets::APP_HTML.to_string())
        }
        _ => match query.token.as_deref().map(|t| state.sign_in_with(t)) {
            Some(Some(signed)) => signed,
            Some(None) => {
                tracing::warn!(peer = ?req.peer_addr(), "refused a wrong web access token");
                login_page(StatusCode::FORBIDDEN, "That token is not the right one.")
            }
            None => login_page(StatusCode::OK, "Sign in with the access token."),
        },
    }
}

#[derive(Deserialize)]
struct LoginForm {
    token: String,
}

async fn login(
    req: HttpRequest,
    state: web::Data<ServerState>,
    form: Option<web::Form<LoginForm>>,
) -> HttpResponse {
    if matches!(state.gate(&req), Gate::BadHost) {
        return bad_host();
    }
    // A form posted from another site's page (login CSRF) carries that site's Origin.
    if !state.same_origin(&req) {
        return error(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "sign-in is accepted only from this server's own page",
            None,
        );
    }
    match form.and_then(|f| state.sign_in_with(&f.token)) {
        Some(signed) => signed,
        None => {
            tracing::warn!(peer = ?req.peer_addr(), "refused a wrong web access token");
            login_page(StatusCode::FORBIDDEN, "That token is not the right one.")
        }
    }
}

async fn asset(
    req: HttpRequest,
    state: web::Data<ServerState>,
    name: web::Path<String>,
) -> HttpResponse {
    let gate = state.gate(&req);
    if matches!(gate, Gate::BadHost) {
        return bad_host();
    }
    let Some((ty, bytes, public)) = assets::get(&name) else {
        return not_found().await;
    };
    if !public && !matches!(gate, Gate::Signed | Gate::Shared(_)) {
        return unauthorized();
    }
    HttpResponse::Ok()
        .content_type(ty)
        // The files change only with the binary; a browser may keep them for the session.
        .insert_header((header::CACHE_CONTROL, "private, max-age=3600"))
        .body(bytes)
}

fn unauthorized() -> HttpResponse {
    error(
        StatusCode::UNAUTHORIZED,
        "unauthorized",
        "sign in first: open the URL tuios web printed, with its token",
        Some("tuios web --url prints it again"),
    )
}

async fn not_found() -> HttpResponse {
    error(StatusCode::NOT_FOUND, "not_found", "no such page", None)
}

/// `GET /api/sessions`: the daemon's sessions, as list-sessions reports them (the fields the
/// page shows).
async fn sessions(req: HttpRequest, state: web::Data<ServerState>) -> HttpResponse {
    // A shared link sees its own session and no other.
    let only = match state.gate(&req) {
        Gate::BadHost => return bad_host(),
        Gate::Anonymous => return unauthorized(),
        Gate::Signed => None,
        Gate::Shared(share) => Some(share.session),
    };
    let socket = state.socket.clone();
    let answer = web::block(move || {
        crate::json_client::JsonClient::connect(&socket)?.call("list-sessions", None)
    })
    .await;
    match answer {
        Ok(Ok(result)) => {
            let list: Vec<Value> = result
                .get("sessions")
                .and_then(Value::as_array)
                .map(|a| {
                    a.iter()
                        .filter(|s| only.as_deref().is_none_or(|o| s["name"] == o))
                        .map(|s| {
                            json!({
                                "name": s.get("name"),
                                "window_count": s.get("window_count"),
                                "width": s.get("width"),
                                "height": s.get("height"),
                                "attached": s.get("attached"),
                                "created": s.get("created"),
                            })
                        })
                        .collect()
                })
                .unwrap_or_default();
            HttpResponse::Ok().json(json!({ "sessions": list }))
        }
        Ok(Err(Failure::NoDaemon(_))) => error(
            StatusCode::SERVICE_UNAVAILABLE,
            "no_daemon",
            "no tuios daemon is running",
            Some("start one (tuios new -d NAME), or open a new session from this page"),
        ),
        Ok(Err(f)) => {
            let mut body = f.to_json();
            if body["error"]["code"] == "client_error" {
                body["error"]["code"] = json!("daemon_error");
            }
            HttpResponse::BadGateway().json(body)
        }
        Err(e) => error(
            StatusCode::INTERNAL_SERVER_ERROR,
            "internal",
            &format!("the session list could not be read: {e}"),
            None,
        ),
    }
}

/// `GET /ws`: the attach. Refused (never upgraded) without the cookie or with a foreign
/// Origin: a page on another site may open WebSockets to us and the browser would send our
/// cookie along were it not SameSite=Strict; the Origin check does not rely on that.
async fn websocket(
    req: HttpRequest,
    body: web::Payload,
    state: web::Data<ServerState>,
) -> HttpResponse {
    let share = match state.gate(&req) {
        Gate::BadHost => return bad_host(),
        Gate::Anonymous => {
            tracing::warn!(peer = ?req.peer_addr(), "refused a WebSocket without a session cookie");
            return unauthorized();
        }
        Gate::Signed => None,
        Gate::Shared(share) => Some(share),
    };
    if !state.same_origin(&req) {
        tracing::warn!(
            peer = ?req.peer_addr(),
            origin = ?req.headers().get(header::ORIGIN),
            "refused a WebSocket from a foreign origin"
        );
        return error(
            StatusCode::FORBIDDEN,
            "forbidden_origin",
            "WebSocket connections are accepted only from this server's own page",
            None,
        );
    }
    // The query only after the gate: before it, every upgrade gets the same refusal.
    let mut query = match web::Query::<bridge::WsQuery>::from_query(req.query_string()) {
        Ok(q) => q.into_inner(),
        Err(e) => {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_params",
                &format!("invalid attach parameters: {e}"),
                Some("session=NAME, create=true|false, cols and rows as numbers"),
            )
        }
    };
    if let Some(name) = &query.session {
        if let Err(e) = protocol::binary::validate_session_name(name) {
            return error(
                StatusCode::BAD_REQUEST,
                "invalid_params",
                &format!("invalid session name: {e}"),
                None,
            );
        }
    }
    if let Some(share) = &share {
        // A shared link opens its session, as it is: no other, and never a new one.
        if query.session.as_ref().is_some_and(|s| *s != share.session) {
            return error(
                StatusCode::FORBIDDEN,
                "forbidden_session",
                "this shared link opens one session only",
                Some(&format!("it opens session {:?}", share.session)),
            );
        }
        query.session = Some(share.session.clone());
        query.create = false;
    }
    let Some(slot) = bridge::Slot::take(&state.attaches) else {
        tracing::warn!("refused an attach: {} are running", bridge::MAX_ATTACHES);
        return error(
            StatusCode::SERVICE_UNAVAILABLE,
            "too_many_attaches",
            &format!(
                "this server already runs {} attaches; close a tab first",
                bridge::MAX_ATTACHES
            ),
            None,
        );
    };
    match actix_ws::handle(&req, body) {
        Ok((mut response, session, messages)) => {
            let peer = req.peer_addr().map(|a| a.to_string()).unwrap_or_default();
            bridge::start(
                state.socket.clone(),
                query,
                slot,
                session,
                messages,
                bridge::AttachAs {
                    peer,
                    share: share.map(|s| (s, state.shares.clone())),
                    silence_limit: state.silence_limit,
                },
            );
            response
                .headers_mut()
                .insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
            response
        }
        Err(e) => error(
            StatusCode::BAD_REQUEST,
            "not_websocket",
            &format!("not a WebSocket upgrade: {e}"),
            None,
        ),
    }
}
