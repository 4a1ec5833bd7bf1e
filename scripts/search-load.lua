-- wrk script: searches with randomised filters, in the shapes `search-bench` mixes (the
-- availability shape excepted: it asks the database for bookings). Used by
-- `scripts/search-ratio`; each request draws its own query. With SEARCH_SHAPE=availability
-- in the environment, every request is of that shape instead: free GPUs over an interval in
-- the next two weeks, as `search-bench` draws them.
local models = {"NVIDIA%20GeForce%20RTX%203090", "NVIDIA%20GeForce%20RTX%204090", "NVIDIA%20L4",
  "NVIDIA%20L40S", "NVIDIA%20A100%2080GB", "NVIDIA%20H100%2080GB", "AMD%20Instinct%20MI300X"}
local regions = {"eu-central", "eu-west", "us-east", "us-west", "ap-south"}
local cells = {{1024, 1}, {1024, 4}, {1024, 16}, {8192, 1}, {8192, 4}, {32768, 1}}

local function pick(list) return list[math.random(#list)] end

local availability = os.getenv("SEARCH_SHAPE") == "availability"

local function at(seconds) return os.date("!%Y-%m-%dT%H:%M:%SZ", seconds) end

request = function()
  if availability then
    local from = os.time() + 3600 * math.random(1, 24 * 14)
    local until_ = from + 3600 * math.random(1, 48)
    return wrk.format("GET", "/v1/listings?available_from=" .. at(from) .. "&available_until=" ..
      at(until_) .. "&gpu_count=" .. pick({1, 2, 4}) .. "&sort=price")
  end
  local kind = math.random(6)
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
