-- ctxd for Neovim: user commands and the autocmds that attach the ctxd
-- client to file buffers and keep the statusline budget fresh. Modules
-- load on first use; configuration is vim.g.ctxd (see :help ctxd-config).
if vim.g.loaded_ctxd then
  return
end
if vim.fn.has("nvim-0.7") ~= 1 then
  vim.notify("ctxd: Neovim 0.7 or later is required", vim.log.levels.WARN)
  return
end
vim.g.loaded_ctxd = 1

local function command(name, fn, opts)
  vim.api.nvim_create_user_command(name, function(cmd)
    require("ctxd.commands")[fn](cmd)
  end, opts)
end

local function complete(arg_lead)
  return require("ctxd.commands").complete(arg_lead)
end

command("CtxdBuild", "build", {
  nargs = "*",
  range = true,
  complete = complete,
  desc = "ctxd: build the context bundle for the buffer (or range) and show it",
})
command("CtxdManifest", "manifest", {
  nargs = "*",
  range = true,
  complete = complete,
  desc = "ctxd: preview what a build would select (no contents)",
})
command("CtxdBudget", "budget", {
  nargs = "*",
  range = true,
  complete = complete,
  desc = "ctxd: token budget and counts of a build",
})
command("CtxdPrompt", "prompt", {
  nargs = "*",
  range = true,
  complete = complete,
  desc = "ctxd: render the provider-ready prompt into a register",
})
command("CtxdStatus", "status", {
  nargs = 0,
  bang = true,
  desc = "ctxd: index and server status (! lists skipped files)",
})

command("CtxdChange", "change", {
  nargs = "*",
  range = true,
  bang = true,
  desc = "ctxd: ask the model for a change of the buffer (or range), check it with ctxd, preview and apply it",
})
command("CtxdChangeCancel", "change_cancel", {
  nargs = 0,
  desc = "ctxd: stop the running :CtxdChange (or reject its preview)",
})
command("CtxdChangeLog", "change_log", {
  nargs = 0,
  desc = "ctxd: show every attempt of the last :CtxdChange",
})

local group = vim.api.nvim_create_augroup("ctxd", { clear = true })

vim.api.nvim_create_autocmd({ "BufReadPost", "BufNewFile", "FileType" }, {
  group = group,
  desc = "ctxd: attach the client to file buffers of a workspace",
  callback = function(ev)
    require("ctxd").auto_attach(ev.buf)
  end,
})

local function on_status_event(ev)
  require("ctxd.status").on_event(ev)
end
vim.api.nvim_create_autocmd({ "BufEnter", "TextChanged", "TextChangedI", "CursorMoved", "BufWipeout" }, {
  group = group,
  desc = "ctxd: keep the statusline budget fresh",
  callback = on_status_event,
})
if vim.fn.exists("##ModeChanged") == 1 then
  -- Entering or leaving visual mode changes the selection the budget is for.
  vim.api.nvim_create_autocmd("ModeChanged", {
    group = group,
    pattern = { "[vV\22]*:*", "*:[vV\22]*" },
    desc = "ctxd: budget of the visual selection",
    callback = on_status_event,
  })
end

-- Loaded after buffers were opened (a lazy plugin manager): attach them.
vim.schedule(function()
  for _, b in ipairs(vim.api.nvim_list_bufs()) do
    if vim.api.nvim_buf_is_loaded(b) and vim.api.nvim_buf_get_name(b) ~= "" then
      require("ctxd").auto_attach(b)
    end
  end
end)
