-- GET /issues?q=<one word of the seeded vocabulary, or a phrase of two>; env as wsx-common.lua
dofile(os.getenv("LUA_DIR") .. "/wsx-common.lua")
words = { "crash", "dashboard", "latency", "export", "billing", "webhook", "onboarding", "mobile", "retry handler", "csv refactor" }
request = function()
  local q = string.gsub(words[math.random(#words)], " ", "%%20")
  return wrk.format("GET", "/api/external/issues?limit=50&q=" .. q, AUTH)
end
