-- A real client for `molang lsp`: headless Neovim (0.7+) through vim.lsp. Opens a vanilla
-- entity file, introduces an error, and checks diagnostics, hover, completion and rename.
-- Driven by molang/cli/tests/lsp_nvim.rs (env: MOLANG_BIN, PACK_DIR, ENTITY_FILE).

local bin, root, file = os.getenv('MOLANG_BIN'), os.getenv('PACK_DIR'), os.getenv('ENTITY_FILE')

local function fail(msg)
  io.stderr:write('FAIL: ' .. msg .. '\n')
  vim.cmd('cquit 1')
end

local diags = {}
local id = vim.lsp.start_client({
  name = 'molang',
  cmd = { bin, 'lsp' },
  root_dir = root,
  handlers = {
    ['textDocument/publishDiagnostics'] = function(_, result)
      diags[vim.uri_to_fname(result.uri)] = result.diagnostics
    end,
  },
})
if not id then fail('the server did not start') end

vim.cmd('edit ' .. vim.fn.fnameescape(file))
vim.bo.readonly = false
local buf = vim.api.nvim_get_current_buf()
vim.lsp.buf_attach_client(buf, id)
local client = vim.lsp.get_client_by_id(id)

-- The line that sets v.index; break it: two operands with no operator (E0106).
local lines = vim.api.nvim_buf_get_lines(buf, 0, -1, false)
local row
for i, l in ipairs(lines) do
  if l:find('v.index = ', 1, true) then row = i end
end
if not row then fail('no v.index line in ' .. file) end
local broken = lines[row]:gsub('%? 0 :', '? 0 0 :', 1)
-- Wait for the server to be up (diagnostics of the workspace arrive first).
if not vim.wait(60000, function() return next(diags) ~= nil end, 20) then fail('no diagnostics after start') end
vim.api.nvim_buf_set_lines(buf, row - 1, row, false, { broken })

local function has_code(code)
  for _, d in ipairs(diags[file] or {}) do
    if d.code == code then return true end
  end
  return false
end
if not vim.wait(60000, function() return has_code('E0106') end, 20) then
  fail('no E0106 for the introduced error: ' .. vim.inspect(diags[file]))
end
io.stdout:write('diagnostics ok\n')

local function at(needle, offset)
  local col = broken:find(needle, 1, true)
  vim.api.nvim_win_set_cursor(0, { row, col - 1 + offset })
  return vim.lsp.util.make_position_params()
end

local function request(method, params)
  local res, err = client.request_sync(method, params, 30000, buf)
  if not res then fail(method .. ': ' .. tostring(err)) end
  if res.err then fail(method .. ': ' .. vim.inspect(res.err)) end
  return res.result
end

local hover = request('textDocument/hover', at('v.index', 3))
local text = hover and hover.contents and hover.contents.value or ''
if not text:find('minecraft:cow', 1, true) or not text:find('render_controllers', 1, true) then
  fail('hover: ' .. text)
end
io.stdout:write('hover ok\n')

local items = request('textDocument/completion', at('t.variant ==', 2))
local found = false
for _, item in ipairs(items or {}) do
  if item.label == 't.variant' then found = true end
end
if not found then fail('completion has no t.variant: ' .. vim.inspect(items)) end
local items = request('textDocument/completion', at('v.index', 2))
found = false
for _, item in ipairs(items or {}) do
  if item.label == 'v.index' then found = true end
end
if not found then fail('completion has no v.index') end
io.stdout:write('completion ok\n')

local prep = request('textDocument/prepareRename', at('v.index', 3))
if not prep or prep.placeholder ~= 'index' then fail('prepareRename: ' .. vim.inspect(prep)) end

local params = at('v.index', 3)
params.newName = 'variant_index'
local edit = request('textDocument/rename', params)
local files, edits = 0, 0
for _, list in pairs(edit.changes or {}) do
  files = files + 1
  edits = edits + #list
end
if files < 2 then fail('rename touched ' .. files .. ' files: ' .. vim.inspect(edit)) end
-- The client applies it across files: the render controller's buffer reads the new name.
vim.lsp.util.apply_workspace_edit(edit, 'utf-16')
local applied = 0
for uri, _ in pairs(edit.changes or {}) do
  local b = vim.uri_to_bufnr(uri)
  local text = table.concat(vim.api.nvim_buf_get_lines(b, 0, -1, false), '\n')
  if text:find('variant_index', 1, true) then
    applied = applied + 1
  end
end
if applied ~= files then fail('the rename was applied in ' .. applied .. ' of ' .. files .. ' files') end
io.stdout:write(string.format('rename ok (%d edits in %d files, applied)\n', edits, files))

vim.lsp.stop_client(id)
vim.wait(5000, function() return client.is_stopped() end, 20)
vim.cmd('qall!')
