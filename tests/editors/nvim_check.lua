-- Neovim, headless, as an author uses it: the set-up docs/editors.md gives (editors/neovim/cogn.lua) attaches
-- `cogn lsp` when a module's schema.json opens; the script breaks the schema, fixes it, and writes what
-- vim.diagnostic.get() said at each step to $COGTUI_NVIM_OUT (JSON). Run by tests/test_lsp_neovim.py. Works on
-- Neovim 0.7 (vim.lsp.start_client + buf_attach_client) and 0.8+ (vim.lsp.start). Every wait is bounded; a wait
-- that runs out is written as such, never hangs the test.
local out_path = os.getenv("COGTUI_NVIM_OUT")
local schema = os.getenv("COGTUI_NVIM_FILE")
local python = os.getenv("COGTUI_NVIM_PYTHON")
local setup = os.getenv("COGTUI_NVIM_SETUP")
local steps = {}
local publishes = 0

local default_handler = vim.lsp.handlers["textDocument/publishDiagnostics"]
vim.lsp.handlers["textDocument/publishDiagnostics"] = function(err, result, ctx, config)
  default_handler(err, result, ctx, config)
  if result and result.uri == vim.uri_from_fname(schema) then
    publishes = publishes + 1
  end
end

local function finish(ok)
  local f = io.open(out_path, "w")
  f:write(vim.fn.json_encode({ ok = ok, steps = steps, version = vim.version() }))
  f:close()
  vim.cmd("qa!")
end

local function record(name, bufnr)
  local items = {}
  for _, d in ipairs(vim.diagnostic.get(bufnr)) do
    table.insert(items, { code = d.code, message = d.message, lnum = d.lnum, col = d.col, end_col = d.end_col,
      severity = d.severity, source = d.source })
  end
  table.insert(steps, { name = name, diagnostics = items })
end

dofile(setup).setup({ cmd = { python, "-m", "cogtui.cli", "lsp" } })
vim.cmd("edit " .. vim.fn.fnameescape(schema))
local bufnr = vim.api.nvim_get_current_buf()

local function wait_for(name, seen, condition)
  local ok = vim.wait(60000, function()
    return publishes > seen and condition(vim.diagnostic.get(bufnr))
  end, 20)
  record(name, bufnr)
  if not ok then
    finish(false)
  end
  return publishes
end

-- the module is valid, though it may have notes (an info such as R002): the steps wait on the S001 the broken
-- schema brings, and on its going
local function has_s001(ds)
  for _, d in ipairs(ds) do
    if d.code == "S001" then
      return true
    end
  end
  return false
end

local seen = wait_for("opened", 0, function(ds) return not has_s001(ds) end)
local lines = vim.api.nvim_buf_get_lines(bufnr, 0, -1, false)
local row, original
for i, line in ipairs(lines) do
  if line:find('"type": "string"', 1, true) then
    row, original = i - 1, line
    break
  end
end
local broken = original:gsub('"string"', '"strng"', 1)
vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { broken })
seen = wait_for("broken", seen, has_s001)
vim.api.nvim_buf_set_lines(bufnr, row, row + 1, false, { original })
wait_for("fixed", seen, function(ds) return not has_s001(ds) end)
finish(true)
