-- Cache kinds of any example.com sub-group: sorted before _.example.com/_, so this one answers.
if obj.status ~= nil and obj.status.warm == true then
  return { status = "Healthy", message = "cache is warm" }
end
return { status = "Progressing", message = "cache is warming" }
