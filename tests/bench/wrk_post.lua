-- wrk_post.lua - drive one endpoint with wrk (scripts/bench-extra.sh).
--
--   WRK_BODY='{"model":"llama-3.1-8b"}' wrk -s tests/bench/wrk_post.lua URL   # POST the body
--   WRK_METHOD=GET wrk -s tests/bench/wrk_post.lua URL                        # GET
--
-- The body comes from the environment so one script serves every endpoint;
-- POST bodies are sent as application/json (the service answers 415 to
-- anything else). At the end it prints one machine-readable line for the
-- bench script:
--   RESULT requests=N duration_s=S rps=R p50_ms=A p99_ms=B max_ms=C
--          connect_errors=.. read_errors=.. write_errors=.. timeouts=.. non_2xx=..
wrk.method = os.getenv("WRK_METHOD") or "POST"
if wrk.method == "POST" then
   wrk.body = os.getenv("WRK_BODY") or '{"model": "llama-3.1-8b"}'
   wrk.headers["Content-Type"] = "application/json"
end

function done(summary, latency, requests)
   local s = summary.duration / 1e6
   io.write(string.format(
      "RESULT requests=%d duration_s=%.1f rps=%.1f p50_ms=%.2f p99_ms=%.2f max_ms=%.2f " ..
      "connect_errors=%d read_errors=%d write_errors=%d timeouts=%d non_2xx=%d\n",
      summary.requests, s, summary.requests / s,
      latency:percentile(50) / 1000, latency:percentile(99) / 1000, latency.max / 1000,
      summary.errors.connect, summary.errors.read, summary.errors.write,
      summary.errors.timeout, summary.errors.status))
end
