if obj.spec ~= nil and obj.spec.broken then
  return { status = "Degraded", message = "widget " .. obj.metadata.name .. " is broken" }
end
return { status = "Healthy" }
