-- wrk script of the benchmark harness (scripts/bench/run-bench.ts).
--
-- Every target gets the same script and arguments, so the client does the same work for each:
--   plain              one pre-built request
--   xff <n>            n pre-built requests, each with its own X-Forwarded-For address (10.x.y.z),
--                      distinct across threads: with MMDS_TRUSTED_PROXIES=1, mmds serve sees n
--                      clients, none of them past the anonymous limit of 60 per minute
--   keys <k1> <k2> ... one pre-built request per API key (Authorization: Bearer <k>), in turn
--   inm <etag> <k1> <k2> ...
--                      as keys, each request also carrying If-None-Match: <etag> (a client that
--                      has the answer already: 304s)
--   asof <epoch> <threads> <k1> <k2> ...
--                      a new as_of on every request (the URL's query gets &as_of=, one second
--                      after the previous one from <epoch>, distinct across the <threads> threads
--                      of -t), the keys in turn: no two requests are the same, so no response
--                      cache answers
-- Requests are built once in init() (except asof's); request() only hands out the next one.
-- done() prints one line "WRK_JSON {...}" with counts and latency percentiles in microseconds.

local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_number", thread_count)
end

local requests = {}
local request_count = 0
local position = 0
local as_of_next = nil
local as_of_step = 1
local as_of_headers = {}

function init(args)
  local mode = args[1] or "plain"
  local number = thread_number or 1
  if mode == "xff" then
    local count = tonumber(args[2]) or 1000
    for k = 1, count do
      local v = (number - 1) * count + k
      local address = string.format("10.%d.%d.%d", math.floor(v / 65536) % 256, math.floor(v / 256) % 256, v % 256)
      requests[k] = wrk.format(nil, nil, { ["X-Forwarded-For"] = address })
    end
    request_count = count
  elseif mode == "asof" then
    -- Threads take turns by second: thread n of N sends epoch + n - 1, + N + n - 1, ...
    as_of_next = (tonumber(args[2]) or 0) + (number - 1)
    as_of_step = tonumber(args[3]) or 1
    for k = 4, #args do
      as_of_headers[k - 3] = { ["Authorization"] = "Bearer " .. args[k] }
    end
    request_count = #args - 3
  elseif mode == "inm" then
    for k = 3, #args do
      requests[k - 2] = wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. args[k], ["If-None-Match"] = args[2] })
    end
    request_count = #args - 2
  elseif mode == "keys" then
    for k = 2, #args do
      requests[k - 1] = wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. args[k] })
    end
    request_count = #args - 1
  else
    requests[1] = wrk.format(nil, nil, nil)
    request_count = 1
  end
end

function request()
  position = position % request_count + 1
  if as_of_next then
    local path = wrk.path .. "&as_of=" .. os.date("!%Y-%m-%dT%H:%M:%SZ", as_of_next)
    as_of_next = as_of_next + as_of_step
    return wrk.format(nil, path, as_of_headers[position])
  end
  return requests[position]
end

function done(summary, latency, _)
  local e = summary.errors
  io.write(string.format(
    'WRK_JSON {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":{"p50":%d,"p90":%d,"p99":%d,"max":%d,"mean":%.1f}}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max, latency.mean))
end
