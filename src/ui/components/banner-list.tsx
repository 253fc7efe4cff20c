// Banners: what happened and what to do, with their actions and a dismiss button.

import type { Banner } from '../playground/banners.js';

export function BannerList({ banners, onDismiss }: { banners: readonly Banner[]; onDismiss: (id: number) => void }) {
  if (banners.length === 0) return null;
  return (
    <div className="banners" aria-live="polite">
      {banners.map((banner) => (
        <div key={banner.id} className={`banner ${banner.level}`} role={banner.level === 'error' ? 'alert' : 'status'} data-kind={banner.kind}>
          <div className="banner-text">
            <strong>{banner.title}</strong>
            {banner.detail ? <span> {banner.detail}</span> : null}
          </div>
          {banner.actions?.map((action) => (
            <button key={action.label} onClick={action.run}>
              {action.label}
            </button>
          ))}
          <button aria-label="Dismiss" onClick={() => onDismiss(banner.id)}>
            ×
          </button>
        </div>
      ))}
    </div>
  );
}
