-- Drives `prompty lsp` from a real editor: headless Neovim (0.7 or later), started with the
-- set-up of docs/editors-and-ci.md as its init.lua, opens a .prompty file (the set-up's
-- FileType autocommand attaches the server) and writes what it received as JSON for the Rust
-- test to check.
--
-- Environment: PROMPTY_FILE (the file to open), PROMPTY_OUT (where to write the JSON),
-- HOVER_LINE/HOVER_CHAR and COMPLETE_LINE/COMPLETE_CHAR (LSP positions); `prompty` on PATH.
-- Run: nvim --headless -u init.lua -i NONE -n -c "luafile lsp.lua"

local results = {}

local function finish(ok, message)
  results.ok = ok
  results.message = message
  local f = io.open(os.getenv('PROMPTY_OUT'), 'w')
  if f then
    f:write(vim.fn.json_encode(results))
    f:close()
  end
  vim.cmd(ok and 'qall!' or 'cquit! 1')
end

local function position(prefix)
  return { line = tonumber(os.getenv(prefix .. '_LINE')), character = tonumber(os.getenv(prefix .. '_CHAR')) }
end

local ok, err = pcall(function()
  local file = os.getenv('PROMPTY_FILE')
  vim.cmd('edit ' .. vim.fn.fnameescape(file))
  local buf = vim.api.nvim_get_current_buf()
  results.filetype = vim.bo[buf].filetype
  -- The set-up attached a client on FileType; find it (get_clients is 0.10's name).
  local clients = vim.lsp.get_clients or vim.lsp.get_active_clients
  local client_id
  assert(vim.wait(15000, function()
    for _, c in ipairs(clients()) do
      if c.name == 'prompty' and vim.lsp.buf_is_attached(buf, c.id) then
        client_id = c.id
        return true
      end
    end
    return false
  end, 50), 'the documented set-up attached no prompty client (filetype: ' .. results.filetype .. ')')

  assert(vim.wait(15000, function() return #vim.diagnostic.get(buf) > 0 end, 50), 'no diagnostics within 15 s')
  results.diagnostics = {}
  for _, d in ipairs(vim.diagnostic.get(buf)) do
    local lsp = d.user_data and d.user_data.lsp or {}
    table.insert(results.diagnostics, {
      lnum = d.lnum,
      col = d.col,
      end_col = d.end_col,
      severity = d.severity,
      source = d.source,
      code = d.code or lsp.code,
      message = d.message,
    })
  end

  local uri = vim.uri_from_bufnr(buf)
  local function request(method, prefix)
    local params = { textDocument = { uri = uri }, position = position(prefix) }
    local responses = vim.lsp.buf_request_sync(buf, method, params, 10000)
    assert(responses and responses[client_id], method .. ': no answer')
    assert(not responses[client_id].err, method .. ': ' .. vim.inspect(responses[client_id].err))
    return responses[client_id].result
  end

  local hover = request('textDocument/hover', 'HOVER')
  results.hover = hover and hover.contents and hover.contents.value or vim.NIL

  local completion = request('textDocument/completion', 'COMPLETE')
  local items = completion and (completion.items or completion) or {}
  results.completion = {}
  for _, item in ipairs(items) do
    table.insert(results.completion, item.label)
  end

  local symbols = vim.lsp.buf_request_sync(buf, 'textDocument/documentSymbol', { textDocument = { uri = uri } }, 10000)
  assert(symbols and symbols[client_id] and not symbols[client_id].err, 'documentSymbol: no answer')
  results.symbols = {}
  for _, s in ipairs(symbols[client_id].result or {}) do
    local children = {}
    for _, c in ipairs(s.children or {}) do
      table.insert(children, c.name)
    end
    table.insert(results.symbols, { name = s.name, line = s.selectionRange.start.line, children = children })
  end

  vim.lsp.stop_client(client_id)
  results.stopped = vim.wait(5000, function() return vim.lsp.client_is_stopped(client_id) end, 50)
end)

if ok then
  finish(true, 'done')
else
  finish(false, tostring(err))
end
