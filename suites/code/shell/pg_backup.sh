#!/bin/bash
# Nightly PostgreSQL backup with rotation: 7 daily, 4 weekly (Sunday), 12 monthly (1st).
# Run from cron:  15 3 * * *  /usr/local/bin/pg_backup.sh >> /var/log/pg_backup.log 2>&1

set -o errexit -o nounset -o pipefail

BACKUP_ROOT=/var/backups/postgres
DATABASES="inventory billing auth"
PGUSER=backup
export PGUSER

today=$(date +%F)
dow=$(date +%u)      # 1..7, 7 = Sunday
dom=$(date +%d)

mkdir -p "$BACKUP_ROOT"/{daily,weekly,monthly}

for db in $DATABASES; do
    file="$BACKUP_ROOT/daily/${db}_${today}.dump"
    echo "$(date '+%F %T') dumping $db -> $file"
    pg_dump --format=custom --compress=9 --no-owner --file="$file.partial" "$db"
    mv "$file.partial" "$file"

    if [ "$dow" -eq 7 ]; then
        cp --reflink=auto "$file" "$BACKUP_ROOT/weekly/"
    fi
    if [ "$dom" = "01" ]; then
        cp --reflink=auto "$file" "$BACKUP_ROOT/monthly/"
    fi
done

prune() {
    local dir=$1 keep=$2
    for db in $DATABASES; do
        # newest first; delete everything after the first $keep files
        ls -1t "$dir/${db}_"*.dump 2>/dev/null | tail -n +$((keep + 1)) | while read -r old; do
            echo "removing $old"
            rm -f -- "$old"
        done
    done
}

prune "$BACKUP_ROOT/daily" 7
prune "$BACKUP_ROOT/weekly" 4
prune "$BACKUP_ROOT/monthly" 12

total=$(du -sh "$BACKUP_ROOT" | cut -f1)
echo "$(date '+%F %T') done, backups use $total"
