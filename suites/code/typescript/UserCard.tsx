import { useMemo, useState } from 'react';
import styles from './UserCard.module.css';

export interface User {
  id: string;
  displayName: string;
  handle: string;
  avatarUrl?: string;
  joinedAt: string; // ISO 8601, e.g. "2024-03-15T09:30:00+09:00"
  followers: number;
  locale: 'en' | 'ja';
}

const LABELS = {
  en: { follow: 'Follow', following: 'Following', joined: 'Joined', followers: 'followers' },
  ja: { follow: 'フォロー', following: 'フォロー中', joined: '登録日', followers: 'フォロワー' },
} as const;

function compactNumber(n: number, locale: string): string {
  return new Intl.NumberFormat(locale, { notation: 'compact', maximumFractionDigits: 1 }).format(n);
}

interface Props {
  user: User;
  initiallyFollowing?: boolean;
  onFollowChange?: (userId: string, following: boolean) => Promise<void>;
}

export function UserCard({ user, initiallyFollowing = false, onFollowChange }: Props) {
  const [following, setFollowing] = useState(initiallyFollowing);
  const [busy, setBusy] = useState(false);
  const t = LABELS[user.locale];

  const joined = useMemo(
    () => new Date(user.joinedAt).toLocaleDateString(user.locale, { year: 'numeric', month: 'long' }),
    [user.joinedAt, user.locale],
  );

  async function toggle() {
    setBusy(true);
    const next = !following;
    setFollowing(next); // optimistic; rolled back below on failure
    try {
      await onFollowChange?.(user.id, next);
    } catch {
      setFollowing(!next);
    } finally {
      setBusy(false);
    }
  }

  return (
    <article className={styles.card} aria-labelledby={`user-${user.id}-name`}>
      <img className={styles.avatar} src={user.avatarUrl ?? '/img/default-avatar.svg'} alt="" width={64} height={64} />
      <div className={styles.body}>
        <h3 id={`user-${user.id}-name`}>{user.displayName}</h3>
        <p className={styles.handle}>@{user.handle}</p>
        <p className={styles.meta}>
          {t.joined}: {joined} · {compactNumber(user.followers, user.locale)} {t.followers}
        </p>
      </div>
      <button type="button" onClick={toggle} disabled={busy} aria-pressed={following}>
        {following ? t.following : t.follow}
      </button>
    </article>
  );
}
