//! A small HTTP/1.1 server on 127.0.0.1 (a free port) that plays an OpenAI-compatible or
//! Anthropic-compatible endpoint for the tests: it records every request (path, headers,
//! body, time), counts requests in flight, and answers as a test's handler says (status,
//! headers, body, delay). Connections are kept alive, as the client pools them.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

/// One request as the server saw it.
#[derive(Debug, Clone)]
pub(crate) struct Recorded {
    pub(crate) path: String,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    pub(crate) at: Instant,
}

impl Recorded {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers.iter().find(|(n, _)| n.eq_ignore_ascii_case(name)).map(|(_, v)| v.as_str())
    }

    pub(crate) fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body).unwrap_or_default()
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
}

/// What the server answers.
#[derive(Debug, Clone)]
pub(crate) struct Reply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    pub(crate) delay: Duration,
}

impl Reply {
    pub(crate) fn json(status: u16, body: &serde_json::Value) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), "application/json".into())],
            body: body.to_string().into_bytes(),
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn raw(status: u16, content_type: &str, body: &str) -> Self {
        Reply {
            status,
            headers: vec![("content-type".into(), content_type.into())],
            body: body.as_bytes().to_vec(),
            delay: Duration::ZERO,
        }
    }

    pub(crate) fn header(mut self, name: &str, value: &str) -> Self {
        self.headers.push((name.into(), value.into()));
        self
    }

    pub(crate) fn after(mut self, delay: Duration) -> Self {
        self.delay = delay;
        self
    }
}

/// `request` and the number of earlier requests with the same body -> the reply.
pub(crate) type Handler = dyn Fn(&Recorded, usize) -> Reply + Send + Sync;

#[derive(Default)]
struct State {
    requests: Vec<Recorded>,
    in_flight: usize,
    max_in_flight: usize,
}

pub(crate) struct Server {
    pub(crate) addr: SocketAddr,
    state: Arc<Mutex<State>>,
    stop: Arc<AtomicBool>,
}

impl Server {
    pub(crate) fn start(handler: impl Fn(&Recorded, usize) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").expect("bind 127.0.0.1");
        let addr = listener.local_addr().expect("address");
        let state = Arc::new(Mutex::new(State::default()));
        let stop = Arc::new(AtomicBool::new(false));
        let handler: Arc<Handler> = Arc::new(handler);
        let (s, st) = (state.clone(), stop.clone());
        std::thread::spawn(move || {
            for conn in listener.incoming() {
                if st.load(Ordering::SeqCst) {
                    break;
                }
                let Ok(conn) = conn else { continue };
                let (s, h, st) = (s.clone(), handler.clone(), st.clone());
                std::thread::spawn(move || serve(conn, &s, &*h, &st));
            }
        });
        Server { addr, state, stop }
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub(crate) fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    pub(crate) fn requests(&self) -> Vec<Recorded> {
        self.state.lock().map(|s| s.requests.clone()).unwrap_or_default()
    }

    pub(crate) fn count(&self) -> usize {
        self.state.lock().map(|s| s.requests.len()).unwrap_or(0)
    }

    pub(crate) fn max_in_flight(&self) -> usize {
        self.state.lock().map(|s| s.max_in_flight).unwrap_or(0)
    }

    /// Waits (up to `limit`) until the server has seen `n` requests.
    pub(crate) fn wait_for(&self, n: usize, limit: Duration) -> bool {
        let start = Instant::now();
        while start.elapsed() < limit {
            if self.count() >= n {
                return true;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        // Wakes the accept loop so that it sees the flag.
        let _ = TcpStream::connect_timeout(&self.addr, Duration::from_millis(200));
    }
}

fn serve(conn: TcpStream, state: &Mutex<State>, handler: &Handler, stop: &AtomicBool) {
    let _ = conn.set_read_timeout(Some(Duration::from_secs(30)));
    let Ok(mut writer) = conn.try_clone() else { return };
    let mut reader = BufReader::new(conn);
    while !stop.load(Ordering::SeqCst) {
        let mut request_line = String::new();
        if reader.read_line(&mut request_line).map_or(true, |n| n == 0) {
            return;
        }
        let path = request_line.split_whitespace().nth(1).unwrap_or_default().to_owned();
        let mut headers = Vec::new();
        loop {
            let mut line = String::new();
            if reader.read_line(&mut line).map_or(true, |n| n == 0) {
                return;
            }
            let line = line.trim_end();
            if line.is_empty() {
                break;
            }
            if let Some((n, v)) = line.split_once(':') {
                headers.push((n.trim().to_ascii_lowercase(), v.trim().to_owned()));
            }
        }
        let length: usize =
            headers.iter().find(|(n, _)| n == "content-length").and_then(|(_, v)| v.parse().ok()).unwrap_or(0);
        let mut body = vec![0u8; length];
        if reader.read_exact(&mut body).is_err() {
            return;
        }
        let recorded = Recorded { path, headers, body, at: Instant::now() };
        let seen = {
            let Ok(mut s) = state.lock() else { return };
            let seen = s.requests.iter().filter(|r| r.body == recorded.body && r.path == recorded.path).count();
            s.requests.push(recorded.clone());
            s.in_flight += 1;
            s.max_in_flight = s.max_in_flight.max(s.in_flight);
            seen
        };
        let reply = handler(&recorded, seen);
        std::thread::sleep(reply.delay);
        if let Ok(mut s) = state.lock() {
            s.in_flight -= 1;
        }
        let mut head = format!("HTTP/1.1 {} X\r\ncontent-length: {}\r\n", reply.status, reply.body.len());
        for (n, v) in &reply.headers {
            head.push_str(&format!("{n}: {v}\r\n"));
        }
        head.push_str("\r\n");
        if writer.write_all(head.as_bytes()).and_then(|()| writer.write_all(&reply.body)).is_err() {
            return;
        }
    }
}

/// An OpenAI chat completion whose message is `content`.
pub(crate) fn chat_completion(content: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "chatcmpl-test",
        "object": "chat.completion",
        "model": "judge-model-2025",
        "choices": [{"index": 0, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"}],
        "usage": {"prompt_tokens": 20, "completion_tokens": 5, "total_tokens": 25},
    })
}

/// An Anthropic message whose text is `content`.
pub(crate) fn anthropic_message(content: &str) -> serde_json::Value {
    serde_json::json!({
        "id": "msg_test",
        "type": "message",
        "role": "assistant",
        "model": "claude-test",
        "content": [{"type": "text", "text": content}],
        "stop_reason": "end_turn",
        "usage": {"input_tokens": 11, "output_tokens": 3},
    })
}
