-- Stack is a simple stack.
local Stack = {}
Stack.__index = Stack

--- Creates a stack.
function Stack.new()
  return setmetatable({ items = {} }, Stack)
end

-- push adds a value.
function Stack:push(v)
  table.insert(self.items, v)
end

local function helper(x)
  return x * 2
end

local pop = function(s)
  return table.remove(s.items)
end

function M.util.size(s)
  return #s.items
end

return Stack
