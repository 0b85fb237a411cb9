call remote#host#RegisterPlugin('magenta', '0', [
\ {'type': 'function', 'name': 'MagentaEvent', 'sync': 0, 'opts': {}},
\ {'type': 'function', 'name': 'MagentaRequest', 'sync': 1, 'opts': {}},
\ ])
