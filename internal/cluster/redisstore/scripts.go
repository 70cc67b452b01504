package redisstore

import "github.com/redis/go-redis/v9"

// addScript changes one node's share of a hash entry.
// KEYS[1] hash; ARGV: field, node, delta, info ("" none), max entries (0 none).
// Returns {before, after} totals, or -1 when a new entry would exceed max.
var addScript = redis.NewScript(`
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
return {before, after}
`)

// syncScript makes one node's shares of a hash exactly the given ones: it
// sets each listed field's share and removes the node's share from every
// other field (the node writes its state again after an outage, when Redis
// may have lost it, or kept a change the node gave up on).
// KEYS[1] hash; ARGV[1] node, then (field, count, info) for each share.
// Returns {occupied, vacated}: the fields whose total it took from zero,
// and those it took to zero.
var syncScript = redis.NewScript(`
local function total(e)
  local t = 0
  for _, c in pairs(e.n) do t = t + c end
  return t
end
local occupied, vacated = {}, {}
local want = {}
for i = 2, #ARGV, 3 do want[ARGV[i]] = true end
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
for i = 2, #ARGV, 3 do
  local v = redis.call('HGET', KEYS[1], ARGV[i])
  local e
  if v then e = cjson.decode(v) else e = {n = {}} end
  local before = total(e)
  if ARGV[i+2] ~= '' and not e.i then e.i = ARGV[i+2] end
  e.n[ARGV[1]] = tonumber(ARGV[i+1])
  redis.call('HSET', KEYS[1], ARGV[i], cjson.encode(e))
  if before == 0 and total(e) > 0 then table.insert(occupied, ARGV[i]) end
end
return {occupied, vacated}
`)

// reapScript removes a dead node's share from every entry of a hash and
// returns the fields that are left with no share at all.
// KEYS[1] hash; ARGV[1] node.
var reapScript = redis.NewScript(`
local gone = {}
local all = redis.call('HGETALL', KEYS[1])
for i = 1, #all, 2 do
  local e = cjson.decode(all[i+1])
  if e.n[ARGV[1]] then
    e.n[ARGV[1]] = nil
    if next(e.n) == nil then
      redis.call('HDEL', KEYS[1], all[i])
      table.insert(gone, all[i])
    else
      redis.call('HSET', KEYS[1], all[i], cjson.encode(e))
    end
  end
end
return gone
`)
