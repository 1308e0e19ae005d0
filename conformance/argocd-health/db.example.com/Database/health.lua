local hs = { status = "Progressing", message = "Waiting for the database" }
if obj.status == nil or obj.status.phase == nil then
  return hs
end
local phase = obj.status.phase
if phase == "Running" then
  hs.status = "Healthy"
  hs.message = "Database is running"
elseif phase == "Failed" then
  hs.status = "Degraded"
  hs.message = obj.status.reason or "Database failed"
elseif phase == "Paused" then
  hs.status = "Suspended"
  hs.message = "Database is paused"
elseif phase == "Gone" then
  hs.status = "Missing"
  hs.message = ""
elseif phase == "Odd" then
  hs.status = "Sideways"
end
return hs
