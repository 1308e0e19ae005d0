if obj.status == nil then
  error("status is missing")
end
return { status = obj.status.phase.value.name }
