package redisstore

import "github.com/redis/go-redis/v9"

// addScript changes one node's share of a hash entry.
// KEYS[1] hash; ARGV: field, node, delta, info ("" none), max entries (0 none).
// Returns {before, after} totals, or -1 when a new entry would exceed max.
//
// With KEYS[2] (the node's receipts, see receiptsKey) and ARGV[6] (the
// batch's id, see batchID) the change is made once per batch
// (cluster.Batch): its answer is kept in the receipts, and the batch sent
// again gets it back instead of a second change; a batch older than the
// receipts' changes nothing.
var addScript = redis.NewScript(receipts + `
if KEYS[2] then
  local r = receipt(ARGV[6], ARGV[1])
  if r then
    local b, a = string.match(r, '^(%-?%d+) (%-?%d+)$')
    return {tonumber(b), tonumber(a)}
  end
end
local v = redis.call('HGET', KEYS[1], ARGV[1])
local e
if v then
  e = cjson.decode(v)
else
  local max = tonumber(ARGV[5])
  if max > 0 and tonumber(ARGV[3]) > 0 and redis.call('HLEN', KEYS[1]) >= max then return -1 end
  e = {n = {}}
  if ARGV[4] ~= '' then e.i = ARGV[4] end
end
local before = 0
for _, c in pairs(e.n) do before = before + c end
local c = (e.n[ARGV[2]] or 0) + tonumber(ARGV[3])
if c > 0 then e.n[ARGV[2]] = c else e.n[ARGV[2]] = nil end
local after = 0
for _, x in pairs(e.n) do after = after + x end
if after > 0 then
  redis.call('HSET', KEYS[1], ARGV[1], cjson.encode(e))
else
  redis.call('HDEL', KEYS[1], ARGV[1])
end
if KEYS[2] then keep(ARGV[1], before .. ' ' .. after) end
return {before, after}
`)

// syncScript makes one node's shares of a hash exactly the given ones: it
// sets each listed field's share and removes the node's share from every
// other field (the node writes its state again after an outage, when Redis
// may have lost it, or kept a change the node gave up on).
// KEYS[1] hash; ARGV[1] node, then (field, count, info) for each share.
// Returns {occupied, vacated}: the fields whose total it took from zero,
// and those it took to zero.
//
// With KEYS[2] and the batch's id as the last ARGV it is made once per
// batch, as addScript's changes are; its answer is the receipt '~'.
var syncScript = redis.NewScript(receipts + `
local last = #ARGV
if KEYS[2] then
  last = #ARGV - 1
  local r = receipt(ARGV[#ARGV], '~')
  if r then return cjson.decode(r) end
end
local function total(e)
  local t = 0
  for _, c in pairs(e.n) do t = t + c end
  return t
end
local occupied, vacated = {}, {}
local want = {}
for i = 2, last, 3 do want[ARGV[i]] = true end
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  if not want[all[i]] then
    local e = cjson.decode(all[i+1])
    if e.n[ARGV[1]] then
      e.n[ARGV[1]] = nil
      if next(e.n) == nil then
        redis.call('HDEL', KEYS[1], all[i])
        table.insert(vacated, all[i])
      else
        redis.call('HSET', KEYS[1], all[i], cjson.encode(e))
      end
    end
  end
end
for i = 2, last, 3 do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  local e
  if v then e = cjson.decode(v) else e = {n = {}} end
  local before = total(e)
  if ARGV[i+2] ~= '' and not e.i then e.i = ARGV[i+2] end
  e.n[ARGV[1]] = tonumber(ARGV[i+1])
  redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(e))
  if before == 0 and total(e) > 0 then table.insert(occupied, ARGV[i]) end
end
if KEYS[2] then keep('~', cjson.encode({occupied, vacated})) end
return {occupied, vacated}
`)

// receipts is the part of addScript and syncScript that keeps a count
// batch's answers (cluster.Batch) in KEYS[2], a hash of one node's last
// batch of one app: '#' its id, and per field (or '~', a resync's) the
// answer. No channel name holds '#' or '~' (Pusher's channel names).
//
// receipt(id, field) returns the answer kept for field if id is the
// receipts' batch, or a "0 0" answer (no transition) for an older batch,
// which was answered; for a newer batch it empties the receipts and
// returns nil. keep(field, answer) keeps an answer for receiptsTTL. Batch
// ids are zero-padded to one length, so that strings compare as numbers.
const receipts = `
local function receipt(id, field)
  local last = redis.call('HGET', KEYS[2], '#')
  if last == id then return redis.call('HGET', KEYS[2], field) end
  if last and id < last then
    if field == '~' then return '[[],[]]' end
    return '0 0'
  end
  redis.call('DEL', KEYS[2])
  redis.call('HSET', KEYS[2], '#', id)
  return nil
end
local function keep(field, answer)
  redis.call('HSET', KEYS[2], field, answer)
  redis.call('PEXPIRE', KEYS[2], ` + receiptsTTL + `)
end
`

// receiptsTTL (ms) is how long a node's receipts outlive its last count
// batch: longer than any outage a batch is sent again through.
const receiptsTTL = "3600000"
