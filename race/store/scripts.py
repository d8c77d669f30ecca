"""The Lua scripts of the Redis store (:mod:`race.store.redis`): each runs atomically on the
keys of one room or one board, which share a hash tag, so they run unchanged on Redis Cluster."""

from __future__ import annotations

from .base import ASIDE, COUNTED, LOG_LENGTH

# Which hash holds a document: the room's (the first key), or for names kept aside its
# aside hash (the last key).
_HASH = """
local function hash(name)
  if string.sub(name, 1, #'ASIDE') == 'ASIDE' then return KEYS[#KEYS] end
  return KEYS[1]
end
""".replace("ASIDE", ASIDE)

# KEYS: the room hash, the log list (or the hash again when there is no log), the aside hash.
# ARGV: ttl, n_expect, (name, version)*, n_write, (name, data)*, log_name, log_data,
#       channel, message, publish command.
COMMIT = (
    _HASH
    + """
local ttl = tonumber(ARGV[1])
local i = 2
local n = tonumber(ARGV[i]); i = i + 1
for _ = 1, n do
  local cur = tonumber(redis.call('HGET', hash(ARGV[i]), 'v:' .. ARGV[i]) or '0')
  if cur ~= tonumber(ARGV[i + 1]) then return 0 end
  i = i + 2
end
n = tonumber(ARGV[i]); i = i + 1
local versions = {}
for _ = 1, n do
  local key = hash(ARGV[i])
  if ARGV[i + 1] == '' then
    redis.call('HDEL', key, 'v:' .. ARGV[i], 'd:' .. ARGV[i])
  else
    versions[ARGV[i]] = redis.call('HINCRBY', key, 'v:' .. ARGV[i], 1)
    redis.call('HSET', key, 'd:' .. ARGV[i], ARGV[i + 1])
  end
  i = i + 2
end
redis.call('EXPIRE', KEYS[1], ttl)
redis.call('EXPIRE', KEYS[3], ttl)
if ARGV[i] ~= '' then
  redis.call('RPUSH', KEYS[2], versions[ARGV[i]] .. '|' .. ARGV[i + 1])
  redis.call('LTRIM', KEYS[2], -LOG_LENGTH, -1)
  redis.call('EXPIRE', KEYS[2], ttl)
end
i = i + 2
if ARGV[i] ~= '' then redis.call(ARGV[i + 2], ARGV[i], ARGV[i + 1]) end
return 1
""".replace("LOG_LENGTH", str(LOG_LENGTH))
)

# KEYS: the room hash, the aside hash. ARGV: names. Returns each name's version and data.
READ = (
    _HASH
    + """
local out = {}
for _, name in ipairs(ARGV) do
  local got = redis.call('HMGET', hash(name), 'v:' .. name, 'd:' .. name)
  out[#out + 1] = got[1]
  out[#out + 1] = got[2]
end
return out
"""
)


# KEYS: the board's sorted set, its hash (m:PLAYER -> member, d:PLAYER -> data).
# ARGV: player, sort key, data, ttl.
BOARD_ADD = """
if redis.call('HSETNX', KEYS[2], 'm:' .. ARGV[1], ARGV[2] .. '|' .. ARGV[1]) == 0 then return 0 end
redis.call('HSET', KEYS[2], 'd:' .. ARGV[1], ARGV[3])
redis.call('ZADD', KEYS[1], 0, ARGV[2] .. '|' .. ARGV[1])
redis.call('EXPIRE', KEYS[1], ARGV[4])
redis.call('EXPIRE', KEYS[2], ARGV[4])
return 1
"""


# KEYS: the room's presence: listed members (a sorted set: member -> until), counted members
# (likewise), the version, when each seat's last listed member went (a hash: seat -> time).
# ARGV: now, until, ttl, n_here, here*, gone*.
# Returns the version, the changed flag, the listed members, how many are counted, whether a
# listed member was added, and the seats gone with their times (flat).
PRESENCE = """
local function key(member)
  if string.sub(member, 1, #'COUNTED') == 'COUNTED' then return KEYS[2] end
  return KEYS[1]
end
local function seats()
  local out = {}
  for _, m in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do out[string.match(m, '^(%S+)')] = true end
  return out
end
local before = seats()
local n = tonumber(ARGV[4])
local changed, added = 0, 0
for i = 5, 4 + n do
  if redis.call('ZADD', key(ARGV[i]), ARGV[2], ARGV[i]) == 1 then
    changed = 1
    if key(ARGV[i]) == KEYS[1] then added = 1 end
  end
end
for i = 5 + n, #ARGV do
  if redis.call('ZREM', key(ARGV[i]), ARGV[i]) == 1 then changed = 1 end
end
for k = 1, 2 do
  if redis.call('ZREMRANGEBYSCORE', KEYS[k], '-inf', ARGV[1]) > 0 then changed = 1 end
end
local after = seats()
for seat in pairs(before) do
  if not after[seat] then redis.call('HSET', KEYS[4], seat, ARGV[1]) end
end
for seat in pairs(after) do redis.call('HDEL', KEYS[4], seat) end
local version = tonumber(redis.call('GET', KEYS[3]) or '0')
if changed == 1 and version == 0 then  -- from the clock, so it grows even after a lost record
  local t = redis.call('TIME')
  version = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
  redis.call('SET', KEYS[3], string.format('%.0f', version))
elseif changed == 1 then
  version = redis.call('INCR', KEYS[3])
end
for k = 1, 4 do redis.call('EXPIRE', KEYS[k], ARGV[3]) end
return {string.format('%.0f', version), changed, redis.call('ZRANGE', KEYS[1], 0, -1), redis.call('ZCARD', KEYS[2]),
        added, redis.call('HGETALL', KEYS[4])}
""".replace("COUNTED", COUNTED)


# KEYS: the allowance (a hash: tokens, at). ARGV: rate a second, burst, now.
# Returns 1 if a token was taken. The key expires once the allowance is full again.
SPEND = """
local rate, burst, now = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local held = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens, at = tonumber(held[1]) or burst, tonumber(held[2]) or now
tokens = math.min(burst, tokens + math.max(0, now - at) * rate)
local spent = 0
if tokens >= 1 then
  tokens = tokens - 1
  spent = 1
end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.6f', tokens), 'at', string.format('%.6f', now))
redis.call('PEXPIRE', KEYS[1], math.ceil((burst - tokens) / rate * 1000) + 1)
return spent
"""
