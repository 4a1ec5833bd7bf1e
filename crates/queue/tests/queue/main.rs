//! Run delivery and wake-ups against a real Redis (`TEST_REDIS_URL`, default
//! `redis://127.0.0.1:6379`), each test in a namespace of its own, with two handles per test
//! standing for two replicas (an API and a worker, or two APIs).

#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

use queue::{Dispatcher, Notifier, Redis, Revocation};
use uuid::Uuid;

fn redis_url() -> String {
    std::env::var("TEST_REDIS_URL").unwrap_or_else(|_| "redis://127.0.0.1:6379".to_owned())
}

/// A fresh namespace: tests share the server, never a key.
fn namespace() -> String {
    format!("queue-test-{}", Uuid::now_v7().simple())
}

fn replica(namespace: &str) -> Redis {
    Redis::open(&redis_url(), namespace).unwrap()
}

async fn stream_len(redis: &Redis) -> i64 {
    let client = redis::Client::open(redis_url()).unwrap();
    let mut conn = client.get_multiplexed_async_connection().await.unwrap();
    redis::cmd("XLEN")
        .arg(redis.stream_key())
        .query_async(&mut conn)
        .await
        .unwrap()
}

/// Each dispatched run reaches exactly one of two workers, and each worker sees its runs in
/// the order they were dispatched.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn each_run_goes_to_one_worker_in_order() {
    let ns = namespace();
    let api = Dispatcher::redis(replica(&ns));
    let workers = [
        Dispatcher::redis(replica(&ns)),
        Dispatcher::redis(replica(&ns)),
    ];
    // The group exists before anything is dispatched (a worker starts first).
    assert_eq!(
        workers[0]
            .next("w0", Duration::from_millis(10))
            .await
            .unwrap(),
        None
    );
    let runs: Vec<Uuid> = (0..40).map(|_| Uuid::now_v7()).collect();
    for run in &runs {
        api.dispatch(*run).await.unwrap();
    }
    let take = |worker: Dispatcher, name: &'static str| async move {
        let mut got = Vec::new();
        while let Some(run) = worker.next(name, Duration::from_millis(300)).await.unwrap() {
            got.push(run);
        }
        got
    };
    let [a, b] = workers;
    let (a, b) = tokio::join!(take(a, "w0"), take(b, "w1"));
    let all: BTreeSet<Uuid> = a.iter().chain(&b).copied().collect();
    assert_eq!(a.len() + b.len(), runs.len(), "a run was delivered twice");
    assert_eq!(all, runs.iter().copied().collect());
    for got in [&a, &b] {
        let positions: Vec<usize> = got
            .iter()
            .map(|r| runs.iter().position(|x| x == r).unwrap())
            .collect();
        assert!(positions.is_sorted(), "{positions:?}");
    }
}

/// A delivery is acknowledged when it is handed out: a worker that dies with it does not get
/// it handed to another by Redis (the database lease decides who runs it). The reconciler's
/// re-dispatch delivers it again, also after Redis lost the stream (a restart without
/// persistence): the group is made again on the next read.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_lost_delivery_comes_again_only_when_dispatched_again() {
    let ns = namespace();
    let redis = replica(&ns);
    let api = Dispatcher::redis(redis.clone());
    let worker = Dispatcher::redis(replica(&ns));
    let run = Uuid::now_v7();
    let next = async |consumer: &str, wait_ms: u64| {
        worker
            .next(consumer, Duration::from_millis(wait_ms))
            .await
            .unwrap()
    };
    api.dispatch(run).await.unwrap();
    assert_eq!(next("dies", 2000).await, Some(run));
    // The consumer that took it is gone; another reads nothing.
    assert_eq!(next("survivor", 300).await, None);
    api.dispatch(run).await.unwrap();
    assert_eq!(next("survivor", 2000).await, Some(run));
    // Redis restarted without persistence: the stream and its group are gone.
    redis.drop_stream().await.unwrap();
    assert_eq!(next("survivor", 100).await, None);
    api.dispatch(run).await.unwrap();
    assert_eq!(next("survivor", 2000).await, Some(run));
}

/// The stream keeps about its last ten thousand entries however many runs were dispatched
/// (trimmed approximately, by whole nodes of the stream).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_stream_is_trimmed_as_it_grows() {
    let ns = namespace();
    let redis = replica(&ns);
    let api = Dispatcher::redis(redis.clone());
    let dispatched = 12_000;
    let tasks: Vec<_> = (0..8)
        .map(|_| {
            let api = api.clone();
            tokio::spawn(async move {
                for _ in 0..dispatched / 8 {
                    api.dispatch(Uuid::now_v7()).await.unwrap();
                }
            })
        })
        .collect();
    for task in tasks {
        task.await.unwrap();
    }
    let len = stream_len(&redis).await;
    assert!(
        (10_000..=10_200).contains(&len),
        "{len} entries after {dispatched} dispatches"
    );
    redis.drop_stream().await.unwrap();
}

/// In process: what is dispatched is handed out once, in order; nothing waiting is `None`.
#[tokio::test]
async fn in_process_delivery_is_in_order_and_once() {
    let queue = Dispatcher::in_process();
    let runs = [Uuid::now_v7(), Uuid::now_v7()];
    for run in runs {
        queue.dispatch(run).await.unwrap();
    }
    for run in runs {
        assert_eq!(
            queue.next("w", Duration::from_millis(10)).await.unwrap(),
            Some(run)
        );
    }
    assert_eq!(
        queue.next("w", Duration::from_millis(10)).await.unwrap(),
        None
    );
}

/// A run's news published by one replica wakes its followers on another, and only them; an
/// ended session reaches every replica.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn wake_ups_and_ended_sessions_reach_every_replica() {
    let ns = namespace();
    let (api, other) = (Notifier::redis(replica(&ns)), Notifier::redis(replica(&ns)));
    let (run, unrelated) = (Uuid::now_v7(), Uuid::now_v7());
    let mut follower = other.subscribe(run).await;
    let mut bystander = other.subscribe(unrelated).await;
    let mut revocations = other.revocations();
    // The listener subscribes in the background: publish until the follower hears it.
    let started = Instant::now();
    loop {
        api.notify(run).await;
        let waited = Instant::now();
        follower.wait(Duration::from_millis(200)).await;
        if waited.elapsed() < Duration::from_millis(150) {
            break;
        }
        assert!(
            started.elapsed() < Duration::from_secs(5),
            "no wake-up in 5 s"
        );
    }
    let waited = Instant::now();
    bystander.wait(Duration::from_millis(300)).await;
    assert!(
        waited.elapsed() >= Duration::from_millis(290),
        "another run's follower was woken"
    );
    let session = Uuid::now_v7();
    api.revoke_session(session).await;
    let heard = tokio::time::timeout(Duration::from_secs(5), async {
        loop {
            match revocations.recv().await.unwrap() {
                Revocation::Session(s) if s == session => return,
                _ => {}
            }
        }
    })
    .await;
    assert!(
        heard.is_ok(),
        "the other replica never heard the session end"
    );
}
