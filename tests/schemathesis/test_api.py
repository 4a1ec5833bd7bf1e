"""The served OpenAPI document, fuzzed by schemathesis: every operation is called with
generated (and deliberately invalid) input; no answer may be a 5xx, and every answer must be
documented — its status, its content type, its headers and its body's schema.

Run by scripts/schemathesis against an embedded `gpumarket serve` with rate limits off.
"""

import os

import schemathesis
from hypothesis import HealthCheck, settings

BASE = os.environ["GPUMARKET_SCHEMATHESIS_URL"]
TOKEN = os.environ["GPUMARKET_SCHEMATHESIS_TOKEN"]

schemathesis.experimental.OPEN_API_3_1.enable()
schema = schemathesis.from_uri(f"{BASE}/openapi.json")


@schema.parametrize()
@settings(
    max_examples=int(os.environ.get("GPUMARKET_SCHEMATHESIS_EXAMPLES", "25")),
    deadline=None,
    derandomize=True,
    suppress_health_check=list(HealthCheck),
)
def test_every_answer_is_documented_and_none_is_a_server_error(case):
    case.call_and_validate(headers={"Authorization": f"Bearer {TOKEN}"})
