use sea_orm::entity::prelude::*;

/// One request through the metered gateway.
#[derive(Clone, Debug, PartialEq, DeriveEntityModel)]
#[sea_orm(table_name = "gateway_requests")]
pub struct Model {
    #[sea_orm(primary_key, auto_increment = false)]
    pub id: Uuid,
    pub booking_id: Uuid,
    pub endpoint: String,
    pub started_at: DateTimeUtc,
    pub finished_at: DateTimeUtc,
    pub prompt_tokens: i64,
    pub output_tokens: i64,
    pub engine_output_tokens: Option<i64>,
    pub ttft_ms: Option<f64>,
    pub per_stream_tok_s: Option<f64>,
    pub concurrency: i32,
    pub outcome: String,
    /// The longest the gateway's writes to the client stayed blocked (streams only).
    pub client_stall_ms: Option<f64>,
    /// Asked nothing that slows decoding (log-probabilities, structured output): comparable
    /// with the benchmark's requests.
    pub comparable: bool,
    /// Text-bearing chunks the client received (streams).
    pub chunks: Option<i64>,
    /// From sending the request to its last token (streams).
    pub last_token_ms: Option<f64>,
    /// The most requests the engine said it ran (`num_requests_running`) while the request
    /// did, sampled when the booking also has direct access to the machine.
    pub engine_load: Option<i32>,
    /// UTF-8 bytes of text (`text`, `delta.content`, reasoning) the client received (streams).
    pub text_bytes: Option<i64>,
    /// The `max_tokens` the engine was sent.
    pub max_tokens: Option<i64>,
}

#[derive(Copy, Clone, Debug, EnumIter, DeriveRelation)]
pub enum Relation {}

impl ActiveModelBehavior for ActiveModel {}
