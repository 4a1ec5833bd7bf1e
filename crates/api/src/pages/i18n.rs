//! The pages' languages: English and Traditional Chinese (the reference site's), chosen by
//! `?lang=` first, then `Accept-Language` (by its q-values), else English.

use actix_web::HttpRequest;

/// A language the pages are written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Lang {
    En,
    ZhHant,
}

impl Lang {
    /// The BCP 47 tag (`<html lang>`, `Content-Language`, `?lang=`).
    pub fn tag(self) -> &'static str {
        match self {
            Self::En => "en",
            Self::ZhHant => "zh-Hant",
        }
    }

    pub fn labels(self) -> &'static Labels {
        match self {
            Self::En => &EN,
            Self::ZhHant => &ZH_HANT,
        }
    }

    /// The language a tag names, if the pages have it: `en*`, and every Chinese tag (the
    /// pages are written in Traditional Chinese only).
    fn of_tag(tag: &str) -> Option<Self> {
        let primary = tag.split(['-', '_']).next().unwrap_or_default();
        if primary.eq_ignore_ascii_case("en") {
            Some(Self::En)
        } else if primary.eq_ignore_ascii_case("zh") {
            Some(Self::ZhHant)
        } else {
            None
        }
    }

    /// The best of `Accept-Language` the pages have (highest q first, the header's order
    /// among equals); `None` when it names none of them.
    fn of_accept_language(header: &str) -> Option<Self> {
        let mut best: Option<(f32, Self)> = None;
        for item in header.split(',').take(32) {
            let mut parts = item.split(';');
            let tag = parts.next().unwrap_or_default().trim();
            let q = parts
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .filter(|q| q.is_finite())
                .unwrap_or(1.0);
            if q <= 0.0 {
                continue;
            }
            if let Some(lang) = Self::of_tag(tag)
                && best.is_none_or(|(b, _)| q > b)
            {
                best = Some((q, lang));
            }
        }
        best.map(|(_, lang)| lang)
    }

    /// The page's language, and whether `?lang=` chose it (links then carry it on).
    pub fn of_request(req: &HttpRequest) -> (Self, bool) {
        let asked = actix_web::web::Query::<std::collections::HashMap<String, String>>::from_query(
            req.query_string(),
        )
        .ok()
        .and_then(|q| q.get("lang").and_then(|tag| Self::of_tag(tag)));
        if let Some(lang) = asked {
            return (lang, true);
        }
        let header = req
            .headers()
            .get("accept-language")
            .and_then(|v| v.to_str().ok())
            .and_then(Self::of_accept_language);
        (header.unwrap_or(Self::En), false)
    }
}

macro_rules! labels {
    ($($name:ident: $en:expr, $zh:expr;)*) => {
        /// Every word the pages print, in one language.
        #[derive(Debug)]
        pub struct Labels {
            $(pub $name: &'static str,)*
        }

        pub static EN: Labels = Labels { $($name: $en,)* };
        pub static ZH_HANT: Labels = Labels { $($name: $zh,)* };
    };
}

labels! {
    site_tagline: "GPU machines, measured by the standard benchmark matrix", "以標準基準矩陣量測的 GPU 機器";
    nav_leaderboard: "Leaderboard", "排行榜";
    nav_calculator: "Decode calculator", "解碼計算器";
    nav_planner: "Capacity planner", "容量規劃";
    nav_models: "Models", "模型";
    nav_hardware: "Hardware", "硬體";
    nav_api: "API docs", "API 文件";
    nav_getting_started: "Getting started", "入門指南";
    nav_orgs: "Organizations", "組織";
    nav_reports: "Reports", "報告";
    nav_runs: "Matrix runs", "矩陣執行";
    nav_benchmarks: "Benchmarks", "基準評測";
    nav_marketplace: "Marketplace", "市集";
    nav_rent: "Rent", "租用";
    nav_pro: "Pro", "Pro";
    untranslated: "This page's text is not translated into Traditional Chinese yet; it is shown in English.", "本頁內文尚未翻譯成繁體中文，以下為英文原文。";
    book_source: "From the book", "出自說明文件";
    next_page: "Next page", "下一頁";
    filter: "Filter", "篩選";
    any: "Any", "全部";
    kind: "Kind", "類型";
    kind_verification: "Verification", "驗證";
    published: "Published", "發布時間";
    name: "Name", "名稱";
    listings: "Listings", "刊登";
    verified_listings: "Verified listings", "已驗證刊登";
    models_text: "The models of the catalog: their shape decides how much memory a stream needs, and so the predictions and the physics check.", "目錄中的模型：其結構決定每個串流需要多少記憶體，進而決定預測與物理檢查。";
    hardware_text: "The GPUs of the catalog, with the figures the predictions and the physics check use.", "目錄中的 GPU，以及預測與物理檢查所用的數據。";
    reports_text: "Every public report the platform signed, newest first. Private reports are never listed.", "平台簽署的所有公開報告，最新的在前。私人報告不會列出。";
    runs_text: "Community runs of the standard matrix, newest first: measured and submitted by their users, checked against the standard's rules, not verified by the platform.", "標準矩陣的社群執行，最新的在前：由使用者量測並提交，依標準規則檢查，未經平台驗證。";
    orgs_text: "The providers with at least one listing on the marketplace, by name.", "在市集上至少有一項刊登的供應商，依名稱排列。";
    org_report: "Signed organisation report", "已簽署的組織報告";
    org_report_text: "What the organisation offers, as the platform signed it; its public figures only.", "平台簽署的組織供應內容；僅含公開數據。";
    generated_at: "Generated at", "產生時間";
    marketplace_text: "Machines for rent, with what the platform measured on them. Search as GET /v1/listings does; each search spends the search rate budget.", "可租用的機器，以及平台在其上量測的結果。搜尋方式與 GET /v1/listings 相同；每次搜尋都會消耗搜尋速率額度。";
    gpu_model_exact: "GPU model (exact)", "GPU 型號（完全相符）";
    min_vram: "VRAM at least (GB)", "顯示記憶體至少（GB）";
    max_price: "Price at most (minor units)", "價格至多（最小貨幣單位）";
    currency: "Currency", "幣別";
    verified_only: "Verified only", "僅已驗證";
    min_total: "Total tok/s at least", "總 tok/s 至少";
    sort: "Sort", "排序";
    sort_price: "Price", "價格";
    sort_tok_s: "Measured speed", "實測速度";
    sort_price_per_mtok: "Price per million tokens", "每百萬 tokens 價格";
    sort_reliability: "Reliability", "可靠度";
    search: "Search", "搜尋";
    price_per_mtok: "Price per million output tokens", "每百萬輸出 tokens 價格";
    badge_age: "Badge age", "徽章年齡";
    days_old: "days", "天";
    no_listings: "No listing matches.", "沒有符合的刊登。";
    rent_heading: "Rent this machine", "租用這台機器";
    availability_14d: "Free GPUs, next 14 days", "未來 14 天的可用 GPU";
    availability_caption: "Time runs left to right (UTC, a tick a day); a band's height is the GPUs free all through it.", "時間由左至右（UTC，每天一個刻度）；色帶高度為整段期間皆可用的 GPU 數。";
    rent_cli: "With the command line", "使用命令列";
    rent_curl: "With curl", "使用 curl";
    rent_text: "Sign in, then book an interval the strip shows free; the example starts at the first free hour.", "登入後預訂上方顯示為可用的時段；範例從第一個可用的整點開始。";
    no_free_time: "No GPU is free in the next 14 days.", "未來 14 天沒有可用的 GPU。";
    history_title: "Market price history", "市場價格歷史";
    history_text: "The market's closed hours and days as GET /v1/market/history answers them: the listed price per GPU-hour across listings (p10, median, p90, in minor units), GPU-hours booked, and the clearing bid — the lowest interruptible bid that held. A provider's own members' bookings are left out.", "市場已結束的各小時與各日，內容與 GET /v1/market/history 相同：各刊登的每 GPU 小時標價（p10、中位數、p90，最小貨幣單位）、已預訂的 GPU 小時數，以及結清出價——成功保有 GPU 的最低可中斷出價。供應商自家成員的預訂不計入。";
    history_caption: "Time runs left to right; the line is the median price, the band p10 to p90, the marks the clearing bid.", "時間由左至右；線為中位數價格，色帶為 p10 至 p90，標記為結清出價。";
    no_history: "No closed bucket in this range yet.", "此範圍內尚無已結束的時段。";
    bucket: "Bucket", "時段";
    bucket_start: "Start (UTC)", "開始（UTC）";
    gpus_listed: "GPUs listed", "刊登的 GPU";
    gpu_hours_booked: "GPU-hours booked", "已預訂 GPU 小時";
    median: "Median", "中位數";
    clearing_bid: "Clearing bid", "結清出價";
    pro_title: "Plans", "方案";
    pro_text: "What each plan allows, as the server enforces it.", "各方案允許的內容，即伺服器實際執行的限制。";
    rate_scale: "Rate limits", "速率限制";
    times_free: "× the free plan's requests a minute", "× 免費方案每分鐘請求數";
    runs_per_day: "Verification runs a day", "每日驗證次數";
    spot_check_every: "A spot check of each verified listing every", "每個已驗證刊登的抽查間隔";
    hours: "hours", "小時";
    private_reports: "Private reports", "私人報告";
    yes: "yes", "是";
    no: "no", "否";
    requests_per_minute: "Requests a minute", "每分鐘請求數";
    unlimited: "unlimited", "不限";
    subscribe: "How to subscribe", "如何訂閱";
    subscribe_text: "An organisation's admin starts Stripe Checkout with POST /v1/orgs/{id}/billing/checkout and pays there; the plan follows Stripe. GET /v1/orgs/{id}/billing shows an organisation's plan.", "組織管理員以 POST /v1/orgs/{id}/billing/checkout 開啟 Stripe Checkout 並付款；方案依 Stripe 狀態而定。GET /v1/orgs/{id}/billing 顯示組織目前的方案。";
    language: "Language", "語言";
    as_json: "This page as JSON", "本頁的 JSON";
    not_found: "Not found", "找不到";
    confirm_email_title: "Confirm your email address", "確認您的電子郵件地址";
    confirm_email_text: "Confirm that this address is yours on gpumarket.", "確認此地址屬於您在 gpumarket 的帳號。";
    confirm_email_button: "Confirm", "確認";
    confirm_email_done: "Your address is confirmed. You can sign in and use your account.", "您的地址已確認。您可以登入並使用帳號。";
    reset_password_title: "Reset your password", "重設密碼";
    reset_password_text: "Choose a new password (at least 12 characters). Every session and personal API key of the account ends.", "請設定新密碼（至少 12 個字元）。帳號的所有工作階段與個人 API 金鑰都會結束。";
    reset_password_button: "Set the password", "設定密碼";
    reset_password_done: "Your password is set. Sign in with it.", "密碼已設定，請以新密碼登入。";
    new_password: "New password", "新密碼";
    link_not_valid: "This link is not valid: it was used, it has expired, or it was never sent.", "此連結無效：已使用、已過期，或從未寄出。";
    not_found_text: "There is no such page, or what it showed was withdrawn.", "沒有這個頁面，或其內容已撤回。";
    verified: "Verified", "已驗證";
    community: "Community", "社群";
    leaderboard_title: "Leaderboard", "排行榜";
    leaderboard_verified_text: "The best total decode throughput of each GPU and model, from the platform's signed verification reports.", "各 GPU 與模型的最佳總解碼吞吐量，取自平台簽署的驗證報告。";
    leaderboard_community_text: "The best total decode throughput of each GPU and model from community runs: measured and submitted by their users, checked against the standard, not verified by the platform.", "社群執行的各 GPU 與模型最佳總解碼吞吐量：由使用者量測並提交，已依標準檢查，但未經平台驗證。";
    nothing_yet: "Nothing measured yet.", "尚無量測結果。";
    gpu: "GPU", "GPU";
    model: "Model", "模型";
    context: "Context", "上下文";
    requests_at_once: "Requests at once", "同時請求數";
    total_tok_s: "Total tok/s", "總 tok/s";
    per_request_tok_s: "Per request tok/s", "每請求 tok/s";
    ttft: "TTFT", "TTFT";
    report: "Report", "報告";
    run: "Run", "執行";
    source: "Source", "來源";
    speed_test_matrix: "Speed test matrix", "速度測試矩陣";
    on: "on", "於";
    contexts: "contexts", "個上下文";
    concurrency_levels: "concurrency levels", "個並行等級";
    prefill_at: "prefill at", "預填於";
    measured_by_platform: "Measured by the platform", "由平台量測";
    by: "by", "提交者";
    measured: "Measured", "已量測";
    hardware: "Hardware", "硬體";
    engine: "Engine", "引擎";
    vram: "VRAM", "顯示記憶體";
    hardware_word: "Hardware is", "硬體為";
    hardware_confirmed: "confirmed by its agent (the machine's word, not an attestation)", "經其代理程式確認（機器自述，非密碼學證明）";
    hardware_claimed: "as claimed by the provider", "供應商所聲明";
    gpu_count: "GPUs", "GPU 數量";
    cpu: "CPU", "CPU";
    ram: "RAM", "記憶體";
    region: "Region", "區域";
    version: "Version", "版本";
    served_model: "Served model", "服務模型";
    max_model_len: "Max model length", "最大模型長度";
    kv_cache_tokens: "KV cache", "KV 快取";
    tokens: "tokens", "tokens";
    fingerprint: "Fingerprint", "指紋";
    standard: "Standard", "標準";
    harness: "Harness", "測試工具";
    profile: "Profile", "設定檔";
    decode_test: "Decode test", "解碼測試";
    fixed_duration: "Fixed duration", "固定時長";
    adaptive_window: "Adaptive window (stops at ±1 % precision)", "自適應視窗（達 ±1 % 精度即停止）";
    prefill_mode: "Prefill mode", "預填模式";
    prefill_from_warmup: "Measured during decode warm-up", "於解碼暖機時量測";
    prefill_repeats: "Repeated cold prompts", "重複冷提示";
    time_per_measurement: "Time per measurement", "每次量測時間";
    max_output: "Max output", "最大輸出";
    started: "Started", "開始";
    finished: "Finished", "結束";
    cost: "Cost", "成本";
    wall_s: "s wall", "秒（實際）";
    server_s: "s of server time", "秒伺服器時間";
    cells_run: "cells run", "格已執行";
    cells_skipped: "skipped", "格略過";
    launch_command: "Launch command", "啟動指令";
    hardware_notes: "Hardware notes", "硬體備註";
    prefill: "Prefill", "預填";
    prefill_caption: "prompt tok/s by context length", "依上下文長度的提示 tok/s";
    context_suffix: "context", "上下文";
    sustained_decode: "Sustained decode", "持續解碼";
    decode_caption: "total tok/s · rows are context length, columns are simultaneous requests", "總 tok/s · 列為上下文長度，欄為同時請求數";
    legend: "Requests queued: the server could not run all requests at once, so some waited in a queue. Over capacity: not run because this many requests at this context would exceed the server's KV cache.", "請求排隊：伺服器無法同時執行所有請求，部分請求在佇列中等待。超出容量：未執行，因為在此上下文下這麼多請求會超出伺服器的 KV 快取。";
    ttft_note: "TTFT is measured after the benchmark warms the server's prompt cache, so it mostly excludes prefill.", "TTFT 於基準測試預熱伺服器提示快取後量測，因此大致不含預填時間。";
    all_measurements: "All measurements", "所有量測";
    all_caption: "Latencies are medians. Total tok/s is output across all simultaneous requests.", "延遲為中位數。總 tok/s 為所有同時請求的輸出總和。";
    gpu_power: "GPU power", "GPU 功耗";
    power_caption: "Each bar is a decode cell's mean GPU power over its window, as the machine's agent sampled it (source: agent). GPU energy only: not the CPU, fans or power-supply losses.", "每一長條為一個解碼格在其量測視窗內的平均 GPU 功耗，由機器上的代理程式取樣（來源：agent）。僅含 GPU 能耗：不含 CPU、風扇或電源損耗。";
    idle_power: "idle before the run", "執行前閒置";
    mean_power: "Mean power", "平均功耗";
    j_per_token: "Energy per token", "每 token 能耗";
    energy: "Energy", "能耗";
    energy_ok: "ok", "正常";
    energy_implausible: "implausible power", "功耗不合理";
    energy_unavailable: "unavailable", "無資料";
    phase: "Phase", "階段";
    status: "Status", "狀態";
    time_between_tokens: "Time between tokens", "token 間隔時間";
    avg_active: "Average active requests", "平均活躍請求數";
    completed_requests: "Completed requests", "完成請求數";
    output_tokens: "Output tokens", "輸出 tokens";
    measured_for: "Measured for", "量測時長";
    status_valid: "Valid", "有效";
    status_requests_queued: "Requests queued", "請求排隊";
    status_over_capacity: "Over capacity", "超出容量";
    status_invalid: "Invalid", "無效";
    status_client_bound: "Client bound", "受用戶端限制";
    compliant: "Compliant with the standard", "符合標準";
    not_compliant: "Not compliant with the standard", "不符合標準";
    partial_run: "Partial run: stopped before its end", "部分執行：在結束前停止";
    signature: "Signature", "簽章";
    key_id: "Key id", "金鑰 ID";
    signed_at: "Signed", "簽署時間";
    envelope_withheld: "The signed envelope of this older report names the engine's address and is shown only to the listing's organisation.", "此舊報告的簽署信封含有引擎位址，僅向該刊登的組織顯示。";
    transparency_log: "Transparency log", "透明度日誌";
    leaf_index: "Leaf index", "葉索引";
    tree_size: "Tree size", "樹大小";
    inclusion_proof: "Inclusion proof", "包含證明";
    checkpoint: "Checkpoint", "檢查點";
    proof_pending: "Not in a checkpoint yet; the next one covers it within seconds.", "尚未納入檢查點；下一個檢查點將在數秒內涵蓋。";
    not_logged: "Not in the log.", "未在日誌中。";
    verify_offline: "Verify offline", "離線驗證";
    downloads: "Downloads", "下載";
    community_run: "Community run", "社群執行";
    community_note: "Measured and submitted by a user, checked against the standard's rules; not verified by the platform. The receipt below is signed: who submitted what, when — not the figures.", "由使用者量測並提交，已依標準規則檢查；未經平台驗證。下方收據經過簽署：記錄誰在何時提交了什麼，而非數據本身。";
    submitted_by: "Submitted by", "提交者";
    submitted: "Submitted", "提交時間";
    receipt: "Receipt", "收據";
    report_sha256: "Report SHA-256", "報告 SHA-256";
    parameters: "Parameters", "參數";
    billion: "B", "B";
    weight_bits: "Weight bits", "權重位元";
    layers: "Layers", "層數";
    attention_layers: "Attention layers", "注意力層";
    kv_heads: "KV heads", "KV 頭數";
    head_dim: "Head dim", "頭維度";
    recurrent_state: "Recurrent state per stream", "每串流遞迴狀態";
    bytes: "bytes", "位元組";
    datasheet: "Source", "來源";
    results_across_hardware: "Results across hardware", "各硬體的結果";
    results_across_models: "Results across models", "各模型的結果";
    vendor: "Vendor", "廠商";
    memory_bandwidth: "Memory bandwidth", "記憶體頻寬";
    fp16_tflops: "FP16 tensor TFLOPS (dense)", "FP16 張量 TFLOPS（稠密）";
    listing: "Listing", "刊登";
    price: "Price per GPU-hour", "每 GPU 小時價格";
    available: "Available", "可用時段";
    badge_verified: "Verified", "已驗證";
    badge_unverified: "Not verified", "未驗證";
    badge_expired: "Verification expired", "驗證已過期";
    badge_demoted: "Demoted by a spot check", "因抽查降級";
    verified_at: "Verified at", "驗證時間";
    badge_expires: "Badge expires", "徽章到期";
    best_total: "Best total tok/s", "最佳總 tok/s";
    single_stream: "Single stream tok/s", "單串流 tok/s";
    guarantee: "Performance guarantee", "效能保證";
    guarantee_of_verified: "of the verified per-stream speed through the gateway, or a credit", "的已驗證單串流速度（經由閘道），否則補償";
    latest_report: "Latest report", "最新報告";
    uptime_30d: "Uptime, last 30 days", "近 30 天運作時間";
    uptime_caption: "One bar a day (UTC), from liveness probes; maintenance announced in time is left out.", "每天一格（UTC），來自存活探測；及時公告的維護時段不計入。";
    reliability: "Reliability (30-day uptime)", "可靠度（30 天運作時間）";
    state_now: "State now", "目前狀態";
    interrupted_30d: "Bookings interrupted by maintenance, last 30 days", "近 30 天因維護中斷的預訂";
    not_observed: "Not yet probed", "尚未探測";
    catalog_entries: "Catalog", "目錄";
    hardware_unchecked: "No catalog entries: the physics check did not run.", "無目錄項目：未執行物理檢查。";
    book: "Book through the API", "透過 API 預訂";
    book_text: "Bookings are made through the API: sign in, then post the interval and GPU count.", "預訂透過 API 進行：登入後提交時段與 GPU 數量。";
    calculator_title: "Decode calculator", "解碼計算器";
    calculator_text: "Predicted decode speed from the memory-bandwidth roofline, beside what was measured.", "依記憶體頻寬 roofline 預測的解碼速度，並列出實測結果。";
    context_tokens: "Context tokens", "上下文 tokens";
    concurrency: "Concurrency", "並行數";
    calculate: "Calculate", "計算";
    predicted_per_stream: "Predicted per-stream tok/s", "預測每串流 tok/s";
    predicted_total: "Predicted total tok/s", "預測總 tok/s";
    max_concurrency: "Most streams that fit the KV cache", "KV 快取可容納的最多串流";
    physical_limit: "Physical limit (verification rejects faster)", "物理上限（驗證拒絕更快的結果）";
    bound: "Bound by", "受限於";
    memory_bound: "memory bandwidth", "記憶體頻寬";
    compute_bound: "tensor throughput", "張量吞吐量";
    measured_here: "Measured at this cell", "此格的實測結果";
    formula: "Formula", "公式";
    formula_text: "bytes per step = weights + concurrency × (context × KV bytes per token + recurrent state); time per step = bytes ÷ (efficiency × bandwidth), at least FLOPs ÷ (efficiency × tensor throughput); efficiency is the same for every GPU.", "每步位元組 = 權重 + 並行數 × (上下文 × 每 token KV 位元組 + 遞迴狀態)；每步時間 = 位元組 ÷ (效率 × 頻寬)，不少於 FLOPs ÷ (效率 × 張量吞吐量)；所有 GPU 使用相同效率。";
    efficiency: "Efficiency", "效率";
    choose: "Choose a GPU and a model.", "請選擇 GPU 與模型。";
    invalid_input: "Not calculated", "未計算";
    not_a_whole_number: "not a whole number", "不是整數";
    spot_check: "Spot check", "抽查";
    private_report: "Private: shown to its organisation and share links only", "私人：僅向其組織與分享連結顯示";
    report_unreadable: "This run's report cannot be read as the standard's report.", "無法以標準報告格式讀取此執行的報告。";
    planner_title: "Capacity planner", "容量規劃";
    planner_text: "How many users one machine of each GPU serves within a service-level objective: measured where verified listings exist, predicted from the roofline elsewhere.", "在服務水準目標內，每種 GPU 的一台機器可服務多少使用者：有已驗證刊登者為實測值，其餘為 roofline 預測值。";
    users: "Users", "使用者";
    ttft_limit: "First token within (ms, p99)", "首個 token 時限（毫秒，p99）";
    itl_limit: "Gap between tokens within (ms, p99)", "token 間隔時限（毫秒，p99）";
    plan: "Plan", "規劃";
    source_measured: "measured", "實測";
    source_predicted: "predicted", "預測";
    users_per_machine: "Users per machine", "每台機器使用者";
    machines_needed: "Machines needed", "所需機器";
    ttft_estimated: "TTFT p99 (estimated, ms)", "TTFT p99（估計，毫秒）";
    stutter: "Stutter p99 (ms)", "卡頓 p99（毫秒）";
    per_stream_tok_s: "Per-stream tok/s", "每串流 tok/s";
    choose_objective: "Choose a model and an objective.", "請選擇模型與目標。";
    not_a_number: "not a number", "不是數字";
    compare_title: "Reports compared", "報告比較";
    compare_text: "Per context, each report's per-user tok/s against total tok/s at each concurrency: the throughput–interactivity frontier.", "依上下文顯示各報告在各並行數下的每使用者 tok/s 對總 tok/s：吞吐量與互動性的邊界。";
    per_user_axis: "Per-user tok/s", "每使用者 tok/s";
    slo_line: "Stutter limit", "卡頓上限";
    differs: "Differs by more than 5 %", "差異超過 5 %";
    matrix_left_out: "This report's cells do not form a matrix of a standard size; every measurement is in the table below.", "此報告的格子不構成標準大小的矩陣；所有量測皆列於下表。";
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accept_language_picks_the_best_language_the_pages_have() {
        assert_eq!(
            Lang::of_accept_language("zh-TW,zh;q=0.9,en;q=0.8"),
            Some(Lang::ZhHant)
        );
        assert_eq!(
            Lang::of_accept_language("fr, en;q=0.5, zh;q=0.4"),
            Some(Lang::En)
        );
        assert_eq!(
            Lang::of_accept_language("en;q=0.3, zh-Hant;q=0.7"),
            Some(Lang::ZhHant)
        );
        assert_eq!(Lang::of_accept_language("zh;q=0, en"), Some(Lang::En));
        assert_eq!(Lang::of_accept_language("de, fr"), None);
        assert_eq!(Lang::of_accept_language(""), None);
    }
}
