" The input buffer's omnifunc: completes @-mentions and the paths after
" @file: (lua/magenta/mentions.lua). A Vim function, because 'omnifunc'
" cannot name a Lua function through require() on Neovim 0.7.
function! magenta#mentions#omnifunc(findstart, base) abort
  return luaeval('require("magenta.mentions").omnifunc(_A[1], _A[2])', [a:findstart, a:base])
endfunction
