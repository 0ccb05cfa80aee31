#!/usr/bin/env bash
# A throwaway MariaDB on 127.0.0.1 for the MySQL dialect suites (shared/docs/stack.md, "MySQL in tests
# and CI"). The shell twin of mariadb-server.ts: keep the server arguments of the two in step.
#
#   source test/support/start-mariadb.sh; mariadb_start; trap mariadb_stop EXIT   # exports TEST_MYSQL_URL
#   bash test/support/start-mariadb.sh             # prints the URL, runs until Ctrl-C, then stops
#   bash test/support/start-mariadb.sh npm test    # runs the command with TEST_MYSQL_URL, then stops

# Starts the server, creates user gateway@127.0.0.1 with ALL PRIVILEGES and exports TEST_MYSQL_URL,
# MARIADB_PID and MARIADB_TMP. Returns non-zero, with the server log, when it cannot start.
mariadb_start() {
  local user password port attempt started=0
  user=$(id -un)
  export PATH="$PATH:/usr/sbin:/usr/bin"
  MARIADB_TMP=$(mktemp -d "${TMPDIR:-/tmp}/gw-mariadb-XXXXXX")
  if ! mariadb-install-db --no-defaults --user="$user" --datadir="$MARIADB_TMP/data" --skip-test-db \
      --auth-root-authentication-method=socket --auth-root-socket-user="$user" >"$MARIADB_TMP/install.log" 2>&1; then
    cat "$MARIADB_TMP/install.log" >&2
    mariadb_stop
    return 1
  fi
  for attempt in 1 2 3; do
    port=$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")
    # --no-defaults must come first. Output goes to a file: a server holding our stdout would keep
    # whoever reads this script's output waiting after it ends.
    # --tmpdir: its own folder for internal temporary tables, not the machine's /tmp shared with other servers.
    mkdir -p "$MARIADB_TMP/tmp"
    mariadbd --no-defaults --user="$user" --datadir="$MARIADB_TMP/data" --socket="$MARIADB_TMP/sock" \
      --pid-file="$MARIADB_TMP/pid" --tmpdir="$MARIADB_TMP/tmp" --port="$port" --bind-address=127.0.0.1 --skip-name-resolve \
      --character-set-server=utf8mb4 --collation-server=utf8mb4_unicode_ci \
      --sql-mode=ONLY_FULL_GROUP_BY,STRICT_TRANS_TABLES,NO_ZERO_IN_DATE,NO_ZERO_DATE,ERROR_FOR_DIVISION_BY_ZERO,NO_ENGINE_SUBSTITUTION \
      --default-time-zone=+00:00 --max-connections=500 \
      --innodb-buffer-pool-dump-at-shutdown=OFF --innodb-buffer-pool-load-at-startup=OFF \
      --innodb-flush-log-at-trx-commit=0 --innodb-doublewrite=0 --innodb-flush-method=nosync \
      >"$MARIADB_TMP/mariadbd.log" 2>&1 </dev/null &
    MARIADB_PID=$!
    local deadline=$((SECONDS + 30))
    while kill -0 "$MARIADB_PID" 2>/dev/null && ((SECONDS < deadline)); do
      if mariadb-admin --no-defaults --socket="$MARIADB_TMP/sock" -u"$user" ping >/dev/null 2>&1; then
        started=1
        break
      fi
      sleep 0.05
    done
    if ((started)) || ! grep -q 'Bind on TCP/IP port' "$MARIADB_TMP/mariadbd.log"; then break; fi
    wait "$MARIADB_PID" 2>/dev/null || true # the port was taken between probe and bind: try another
  done
  if ((!started)); then
    echo "mariadbd did not start:" >&2
    tail -n 30 "$MARIADB_TMP/mariadbd.log" >&2
    mariadb_stop
    return 1
  fi
  password=$(od -An -N18 -tx1 /dev/urandom | tr -d ' \n')
  if ! mariadb --no-defaults --socket="$MARIADB_TMP/sock" -u"$user" -e \
      "CREATE USER 'gateway'@'127.0.0.1' IDENTIFIED BY '$password'; GRANT ALL PRIVILEGES ON *.* TO 'gateway'@'127.0.0.1';"; then
    mariadb_stop
    return 1
  fi
  export MARIADB_PID MARIADB_TMP
  export TEST_MYSQL_URL="mysql://gateway:$password@127.0.0.1:$port/"
  echo "TEST_MYSQL_URL=$TEST_MYSQL_URL" >&2
}

# Stops the server (SIGTERM is mariadbd's normal shutdown; SIGKILL after 15 s) and removes its files.
# Safe to call twice and when the start failed half-way.
mariadb_stop() {
  if [[ -n "${MARIADB_PID:-}" ]]; then
    kill -TERM "$MARIADB_PID" 2>/dev/null || true
    local deadline=$((SECONDS + 15))
    while kill -0 "$MARIADB_PID" 2>/dev/null && ((SECONDS < deadline)); do sleep 0.05; done
    kill -KILL "$MARIADB_PID" 2>/dev/null || true
    wait "$MARIADB_PID" 2>/dev/null || true
  fi
  if [[ -n "${MARIADB_TMP:-}" ]]; then rm -rf "$MARIADB_TMP"; fi
  unset MARIADB_PID MARIADB_TMP
}

if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then
  set -euo pipefail
  trap mariadb_stop EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
  mariadb_start
  if (($# > 0)); then
    "$@"
  else
    echo "export TEST_MYSQL_URL='$TEST_MYSQL_URL'"
    echo "MariaDB runs until Ctrl-C." >&2
    wait "$MARIADB_PID"
  fi
fi
