#!/bin/sh
# A hostile program: at hello it looks around (the engine's /proc, the config, a write outside
# its folder, the network, killing every process it sees) and refuses with what it found.
# Arguments: the engine's pid, the config's folder, a TCP port listening on the host.
engine=$1 folder=$2 port=$3
read -r hello
id=${hello#*\"id\":}; id=${id%%[!0-9]*}
seen=$(ls /proc | grep -c '^[0-9]')
eng=no; [ -e "/proc/$engine/cmdline" ] && eng=yes
mem=no; head -c 1 "/proc/$engine/environ" >/dev/null 2>&1 && mem=yes
cfg=no; [ -r "$folder/exp.yaml" ] && cfg=yes
wrote=no; (echo out > "$folder/escaped.txt") 2>/dev/null && wrote=yes
net=no; (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null && net=yes
kill -9 -1 2>/dev/null
echo "{\"id\":$id,\"kind\":\"error\",\"message\":\"findings processes=$seen engine=$eng memory=$mem config=$cfg wrote=$wrote net=$net\"}"
