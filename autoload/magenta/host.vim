" The remote#host factory for magenta: Neovim calls it the first time a
" magenta function needs the host; it returns the channel of the process
" lua/magenta/host.lua starts (0 when it cannot start).
function! magenta#host#start(host_info) abort
  return luaeval("require('magenta.host').start()")
endfunction

" (Re-)registers the host. a:channel is 0 to start the binary lazily, or
" the channel of a host that is already connected (tests). Registering
" again after the host died makes the next call start a new one; the
" remote functions are redefined so they bind to the new channel.
function! magenta#host#register(channel) abort
  let l:Factory = a:channel ? a:channel : function('magenta#host#start')
  call remote#host#Register('magenta', 'x', l:Factory)
  for l:plugin in remote#host#PluginsForHost('magenta')
    for l:spec in l:plugin.specs
      if l:spec.type ==# 'function'
        " A function never called still has its bootstrap autocommand,
        " which asks for the current channel when it runs.
        if exists('*' . l:spec.name)
          execute 'delfunction ' . l:spec.name
          call remote#define#FunctionOnHost('magenta', l:plugin.path . ':function:' . l:spec.name,
                \ l:spec.sync, l:spec.name, l:spec.opts)
        endif
      endif
    endfor
  endfor
endfunction
