//! `serve --demo`: a simulated RTX 3060 engine, a demo provider with a listing for it, and a
//! quick verification run — the whole loop on one machine within a minute.

use std::net::SocketAddr;

use anyhow::Context;
use app::{App, Caller, Credential};
use domain::ListingInput;

const DEMO_EMAIL: &str = "demo@gpumarket.local";
const DEMO_PASSWORD: &str = "demo-password-not-secret";
const DEMO_ORG: &str = "Demo GPU Provider";

/// Starts the simulated engine and sets up and verifies the demo listing, with an agent for
/// it: `--dry-run` (it prints the accounts it would make and what sshd would be answered)
/// unless `agent` is asked for and this process runs as root — the demo never runs `useradd`
/// on a developer's machine.
pub async fn start(app: App, api: SocketAddr, agent: bool) -> anyhow::Result<()> {
    let profile = sim::Profile::load("rtx3060-nemotron-nano-12b-awq")?;
    let engine =
        sim::serve(profile, "127.0.0.1:0", 1.0).context("starting the simulated engine")?;
    let engine_url = format!("http://{}", engine.local_addr());
    tokio::spawn(engine.run());

    let caller = match app
        .register(DEMO_EMAIL, DEMO_PASSWORD, "Demo Provider")
        .await
    {
        Ok((user, _)) => Caller {
            user_id: user.id,
            via: Credential::AccessToken { session: None },
            network: None,
        },
        // A demo database from an earlier start: the demo provider signs in again.
        Err(app::AppError::EmailTaken) => {
            let tokens = app
                .login(
                    DEMO_EMAIL,
                    DEMO_PASSWORD,
                    app.client_network(std::net::Ipv4Addr::LOCALHOST.into(), None),
                )
                .await?;
            app.authenticate(&tokens.access_token).await?
        }
        Err(e) => return Err(e.into()),
    };
    let org = match app
        .my_orgs(caller)
        .await?
        .into_iter()
        .find(|(o, _)| o.name == DEMO_ORG)
    {
        Some((org, _)) => org.id,
        None => app.create_org(caller, DEMO_ORG).await?.id,
    };
    let listing = app
        .create_listing(
            caller,
            org,
            &ListingInput {
                title: "RTX 3060 12GB · Nemotron Nano 12B AWQ (simulated)",
                gpu_model: "NVIDIA GeForce RTX 3060",
                gpu_count: 1,
                vram_gb: 12,
                cpu_model: "Intel Xeon E5-2680 v4 (14C)",
                ram_gb: 32,
                region: "local",
                price_per_gpu_hour: 35,
                // Idle time sold interruptibly from 0.20 an hour.
                min_bid_per_gpu_hour: Some(20),
                currency: "USD",
                engine_base_url: &engine_url,
                engine_model: "bench",
                engine_name: None,
                engine_api_key: None,
                available_from: None,
                available_until: None,
                // Reached through the gateway only: its bookings carry the guarantee (a
                // booking given SSH or an HTTPS URL could load the engine around it).
                ssh: None,
                https_url: None,
                // The simulator's profile is this pair: its figures are checked against physics.
                catalog_gpu: Some("rtx-3060-12gb"),
                catalog_model: Some("nvidia-nemotron-nano-12b-v2-awq"),
                // Bookings through the gateway are held to 80 % of the verified speed.
                guarantee_min_fraction: Some(0.8),
                containers: None,
            },
        )
        .await?;
    let run = app
        .request_verification(caller, listing.id, "quick", "public")
        .await?;
    let base = format!("http://{api}");
    let listing_id = listing.id;
    let dry_run = !(agent && is_root());
    start_agent(&app, caller, org, listing_id.as_uuid(), &base, dry_run).await?;
    println!(
        "\ngpumarket demo\n\
         \x20 simulated engine:  {engine_url}  (RTX 3060 profile, real time)\n\
         \x20 demo provider:     {DEMO_EMAIL} / {DEMO_PASSWORD}\n\
         \x20 listing:           {base}/v1/listings/{listing_id}\n\
         \x20 live progress:     curl -N {base}/v1/verifications/{run_id}/events\n\
         \x20 run status:        {base}/v1/verifications/{run_id}\n\
         \x20 reports:           {base}/v1/listings/{listing_id}/reports   (in about 40 s)\n\
         \x20 organisation:      {base}/v1/orgs/{org}/report\n\
         \x20 leaderboard:       {base}/v1/leaderboard\n\
         \x20 signing keys:      {base}/v1/signing-keys\n\
         \x20 results site:      {base}/   (this machine: {base}/listings/{listing_id})\n\
         \x20 agent:             {agent_mode}\n\
         \x20 API docs:          {base}/docs/\n",
        run_id = run.id,
        agent_mode = if dry_run {
            "--dry-run (prints the accounts it would make; `serve --demo --agent` as root makes them)"
        } else {
            "making booking accounts on this machine (--agent, as root)"
        },
    );
    Ok(())
}

/// Whether this process runs as root.
fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|status| {
        status
            .lines()
            .find(|l| l.starts_with("Uid:"))
            .is_some_and(|l| l.split_whitespace().nth(2) == Some("0"))
    })
}

/// The demo listing's agent, with its own key, in this process.
async fn start_agent(
    app: &App,
    caller: Caller,
    org: domain::OrgId,
    listing: uuid::Uuid,
    base: &str,
    dry_run: bool,
) -> anyhow::Result<()> {
    let key = app
        .create_org_key(caller, org, "demo agent", &["agent".to_owned()], &[listing])
        .await?;
    let settings = app.config().agent.clone();
    let options = agent::run::Options {
        api: format!("{base}/v1"),
        listing: listing.to_string(),
        key: key.secret.clone(),
        state_dir: std::env::temp_dir().join(format!("gpumarket-demo-agent-{listing}")),
        keys_gid: agent::accounts::group_id(
            std::path::Path::new("/etc/group"),
            &settings.agent_keys_group,
        ),
        machine: agent::accounts::Machine {
            home_base: settings.agent_home_base.into(),
            uid_min: settings.agent_uid_min,
            uid_max: settings.agent_uid_max,
            grace: std::time::Duration::from_secs(settings.agent_end_grace_secs),
            gpu_tools: Default::default(),
            passwd: "/etc/passwd".into(),
        },
        dry_run,
        docker_host: "unix:///var/run/docker.sock".to_owned(),
    };
    tokio::spawn(async move {
        if let Err(e) = agent::run::run(options).await {
            tracing::error!(error = e, "the demo's agent stopped");
        }
    });
    Ok(())
}
