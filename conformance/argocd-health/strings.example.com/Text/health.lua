-- string.gsub and string.rep, which RIC scripts may not use, work in health checks.
local msg = obj.status.message
local cleaned, n = string.gsub(msg, "%s+", " ")
local title = cleaned:gsub("^(%w)", function(c) return c:upper() end)
local bar = string.rep("=", 3)
if n > 0 then
  return { status = "Healthy", message = bar .. " " .. title .. " (" .. n .. " runs of spaces) " .. bar }
end
return { status = "Degraded", message = msg:rep(2) }
