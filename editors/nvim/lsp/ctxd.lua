-- The ctxd server for vim.lsp.config()/vim.lsp.enable() (Neovim 0.11+):
--
--   vim.g.ctxd = { auto_attach = false } -- let vim.lsp.enable start it
--   vim.lsp.enable("ctxd")
--
-- cmd, filetypes and the root markers come from vim.g.ctxd / setup() when
-- this file is loaded; the :Ctxd* commands and the statusline component
-- work with a client started either way (they look clients up by name).
local cfg = require("ctxd.config").get()
local root = require("ctxd.root")

return {
  cmd = cfg.cmd,
  filetypes = cfg.filetypes,
  root_markers = root.flat(cfg.root_markers),
  -- The same root as the plugin's own attach: the first marker found
  -- above the file wins (.ctxd before .git before go.mod, ...), and buffers
  -- ctxd does not serve (scratch, scheme://) get no client.
  root_dir = function(bufnr, on_dir)
    local current = require("ctxd.config").get()
    local ok, path = root.eligible(bufnr, current.filetypes)
    if ok then
      on_dir(root.find(path, current.root_markers))
    end
  end,
  handlers = { ["$/progress"] = require("ctxd.progress").handler },
  on_attach = function(_, bufnr)
    require("ctxd.status").refresh(bufnr, 0)
  end,
  on_exit = function(_, _, client_id)
    vim.schedule(function()
      require("ctxd.progress").forget_client(client_id)
    end)
  end,
}
