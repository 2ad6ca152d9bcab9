-- cogn lsp in Neovim (0.7 and later): every YAML, JSON and Markdown buffer inside a Cognitive Module (a folder
-- with module.yaml, MODULE.md or module.md at most six levels up) gets cogtui's language server, one per module.
-- Copy this file to ~/.config/nvim/lua/cogn.lua and add `require("cogn").setup()` to your init.lua
-- (docs/editors.md). `setup({ cmd = { "/path/to/cogn", "lsp" } })` names another command.
local M = {}

local markers = { "module.yaml", "MODULE.md", "module.md" }
local started = {} -- Neovim 0.7: the client of each module folder (0.8's vim.lsp.start reuses its own)

function M.module_root(path)
  local dir = vim.fn.fnamemodify(path, ":p:h")
  for _ = 1, 6 do
    for _, marker in ipairs(markers) do
      if vim.fn.filereadable(dir .. "/" .. marker) == 1 then
        return dir
      end
    end
    local parent = vim.fn.fnamemodify(dir, ":h")
    if parent == dir then
      return nil
    end
    dir = parent
  end
  return nil
end

function M.attach(bufnr, opts)
  local root = M.module_root(vim.api.nvim_buf_get_name(bufnr))
  if root == nil then
    return
  end
  local config = { name = "cogn", cmd = opts.cmd or { "cogn", "lsp" }, root_dir = root }
  if vim.lsp.start then
    vim.lsp.start(config, { bufnr = bufnr })
    return
  end
  if started[root] == nil then
    started[root] = vim.lsp.start_client(config)
  end
  vim.lsp.buf_attach_client(bufnr, started[root])
end

function M.setup(opts)
  opts = opts or {}
  vim.api.nvim_create_autocmd("FileType", {
    pattern = { "yaml", "json", "markdown" },
    callback = function(args)
      M.attach(args.buf, opts)
    end,
  })
end

return M
