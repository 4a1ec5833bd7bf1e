-- wrk script: searches with randomised filters, in the shapes `search-bench` mixes, one in
-- seven of them for free GPUs over an interval in the next two weeks, as `search-bench` draws
-- them. Used by `scripts/search-ratio`; each request draws its own query. With
-- SEARCH_SHAPE=availability in the environment, every request is of that shape; with
-- SEARCH_SHAPE=listings, none is (the mix measured before 2026-12-05).
local models = {"NVIDIA%20GeForce%20RTX%203090", "NVIDIA%20GeForce%20RTX%204090", "NVIDIA%20L4",
  "NVIDIA%20L40S", "NVIDIA%20A100%2080GB", "NVIDIA%20H100%2080GB", "AMD%20Instinct%20MI300X"}
local regions = {"eu-central", "eu-west", "us-east", "us-west", "ap-south"}
local cells = {{1024, 1}, {1024, 4}, {1024, 16}, {8192, 1}, {8192, 4}, {32768, 1}}

local function pick(list) return list[math.random(#list)] end

local shape = os.getenv("SEARCH_SHAPE")

local function at(seconds) return os.date("!%Y-%m-%dT%H:%M:%SZ", seconds) end

request = function()
  local kinds = shape == "listings" and 6 or 7
  local kind = shape == "availability" and 7 or math.random(kinds)
  if kind == 7 then
    local from = os.time() + 3600 * math.random(1, 24 * 14)
    local until_ = from + 3600 * math.random(1, 48)
    return wrk.format("GET", "/v1/listings?available_from=" .. at(from) .. "&available_until=" ..
      at(until_) .. "&gpu_count=" .. pick({1, 2, 4}) .. "&sort=price")
  end
  local cell = pick(cells)
  local q
  if kind == 1 then
    q = "sort=price"
  elseif kind == 2 then
    q = "gpu_model=" .. pick(models) .. "&max_price=" .. math.random(100, 700)
  elseif kind == 3 then
    q = "region=" .. pick(regions) .. "&verified=true"
  elseif kind == 4 then
    q = "sort=tok_s&min_vram_gb=" .. pick({12, 24, 48, 80})
  elseif kind == 5 then
    q = "context=" .. cell[1] .. "&concurrency=" .. cell[2] .. "&min_total_tok_s=" ..
      math.random(10, 500) .. "&sort=price_per_mtok"
  else
    q = "context=" .. cell[1] .. "&concurrency=" .. cell[2] .. "&sort=tok_s&gpu_model=" .. pick(models)
  end
  return wrk.format("GET", "/v1/listings?" .. q)
end
