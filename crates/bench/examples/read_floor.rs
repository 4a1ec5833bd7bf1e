//! The floor of a streaming client's CPU, for `scripts/perf-compare`: what any client pays to
//! read one token's segment, with nothing of the harness's own work.
//!
//! `STREAMS` connections each send one streamed completion and read their socket until
//! `[DONE]` or `SECONDS` have passed: one task per stream on a current-thread runtime, a clock
//! read per read, no HTTP decoding and no JSON — unless `--parse`, which also frames each
//! event and parses it with the harness's own `openai::Chunk`. `--delayed-acks` turns
//! `TCP_QUICKACK` off after every read, so the kernel acknowledges every second segment
//! instead of every read: what the harness cannot do, because an engine that leaves Nagle on
//! would then hold each token until the delayed ACK's timer (40 ms).
//!
//! ```text
//! read_floor HOST:PORT MODEL STREAMS SECONDS MAX_TOKENS [--parse] [--delayed-acks]
//! ```

use std::io::Write;
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

const USAGE: &str =
    "usage: read_floor HOST:PORT MODEL STREAMS SECONDS MAX_TOKENS [--parse] [--delayed-acks]";

struct Options {
    addr: String,
    model: String,
    max_tokens: u64,
    parse: bool,
    delayed_acks: bool,
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [addr, model, streams, seconds, max_tokens, ..] = args.as_slice() else {
        return Err(USAGE.into());
    };
    let options = Arc::new(Options {
        addr: addr.clone(),
        model: model.clone(),
        max_tokens: max_tokens.parse()?,
        parse: args.iter().any(|a| a == "--parse"),
        delayed_acks: args.iter().any(|a| a == "--delayed-acks"),
    });
    let streams: usize = streams.parse()?;
    let seconds: f64 = seconds.parse()?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    let (events, reads) = runtime.block_on(async move {
        let deadline = tokio::time::Instant::now() + Duration::from_secs_f64(seconds);
        let tasks: Vec<_> = (0..streams)
            .map(|_| tokio::spawn(stream(Arc::clone(&options), deadline)))
            .collect();
        let mut total = (0, 0);
        for task in tasks {
            let (events, reads) = task.await??;
            total = (total.0 + events, total.1 + reads);
        }
        Ok::<_, Box<dyn std::error::Error>>(total)
    })?;
    writeln!(std::io::stderr(), "{events} events in {reads} reads")?;
    Ok(())
}

/// One stream: its events and its reads.
async fn stream(
    options: Arc<Options>,
    deadline: tokio::time::Instant,
) -> std::io::Result<(u64, u64)> {
    let mut socket = TcpStream::connect(&options.addr).await?;
    socket.set_nodelay(true)?;
    let body = format!(
        r#"{{"model":"{}","prompt":"the floor of a streaming client","max_tokens":{},"temperature":0,"ignore_eos":true,"stream":true,"stream_options":{{"include_usage":true,"continuous_usage_stats":true}}}}"#,
        options.model, options.max_tokens
    );
    let request = format!(
        "POST /v1/completions HTTP/1.1\r\nhost: {}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{body}",
        options.addr,
        body.len()
    );
    socket.write_all(request.as_bytes()).await?;
    let mut buffer = vec![0u8; 16 << 10];
    let mut arrivals = Vec::with_capacity(1 << 14);
    let mut decoder = openai::SseDecoder::new();
    let (mut events, mut reads, mut done) = (0, 0, false);
    let end = tokio::time::sleep_until(deadline);
    tokio::pin!(end);
    while !done {
        // A short read clears the socket's readiness: one `recvfrom` per segment.
        let n = tokio::select! {
            read = socket.read(&mut buffer) => read?,
            () = &mut end => break,
        };
        if n == 0 {
            break;
        }
        arrivals.push(Instant::now());
        reads += 1;
        let bytes = &buffer[..n];
        if options.parse {
            decoder.feed_each(bytes, |event, _, _| match event {
                openai::EventRef::Data(data) => {
                    events += u64::from(openai::Chunk::parse(data).is_ok_and(|c| c.has_text()));
                }
                openai::EventRef::Done | openai::EventRef::TooLong { .. } => done = true,
            });
        } else {
            events += occurrences(bytes, b"\n\n");
            done = occurrences(bytes, b"[DONE]") > 0;
        }
        if options.delayed_acks {
            socket2::SockRef::from(&socket).set_tcp_quickack(false)?;
        }
    }
    std::hint::black_box(&arrivals);
    Ok((events, reads))
}

fn occurrences(haystack: &[u8], needle: &[u8]) -> u64 {
    haystack
        .windows(needle.len())
        .filter(|w| *w == needle)
        .count() as u64
}
