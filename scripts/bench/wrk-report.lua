-- wrk script of the benchmark harness (scripts/bench/run-bench.ts).
--
-- Every target gets the same script and arguments, so the client does the same work for each:
--   plain              one pre-built request
--   xff <n>            n pre-built requests, each with its own X-Forwarded-For address (10.x.y.z),
--                      distinct across threads: with MMDS_TRUSTED_PROXIES=1, mmds serve sees n
--                      clients, none of them past the anonymous limit of 60 per minute
--   keys <k1> <k2> ... one pre-built request per API key (Authorization: Bearer <k>), in turn
-- Requests are built once in init(); request() only hands out the next one.
-- done() prints one line "WRK_JSON {...}" with counts and latency percentiles in microseconds.

local thread_count = 0

function setup(thread)
  thread_count = thread_count + 1
  thread:set("thread_number", thread_count)
end

local requests = {}
local request_count = 0
local position = 0

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
