-- Any kind of a sub-group of example.com: Ready condition.
local hs = { status = "Progressing", message = "No Ready condition yet" }
if obj.status ~= nil and obj.status.conditions ~= nil then
  for _, c in ipairs(obj.status.conditions) do
    if c.type == "Ready" and c.status == "True" then
      return { status = "Healthy", message = "Ready (wildcard)" }
    elseif c.type == "Ready" and c.status == "False" then
      return { status = "Degraded", message = c.message or "" }
    end
  end
end
return hs
