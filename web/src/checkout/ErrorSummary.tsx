// The banner over the Pay button that lists every problem of the form, each a link to its field (the
// fields show the same messages beside them). An alert, so it is read out when it appears.
import { t } from "../i18n/intl.js";

export function ErrorSummary({ problems, message }: { problems: { key: string; id: string; label: string; message: string }[]; message: string | null }) {
  if (problems.length === 0 && !message) return null;
  return (
    <div className="error-summary" role="alert" data-testid="error-summary">
      {problems.length > 0 ? (
        <>
          <p className="error-summary-title">{t("errors.fix", { count: problems.length })}</p>
          <ul>
            {problems.map((p) => (
              <li key={p.key}>
                <a
                  href={`#${p.id}`}
                  onClick={(e) => {
                    e.preventDefault();
                    document.getElementById(p.id)?.focus();
                  }}
                >
                  {t("errors.item", { label: p.label, message: p.message })}
                </a>
              </li>
            ))}
          </ul>
        </>
      ) : (
        <p className="error-summary-title">{message}</p>
      )}
    </div>
  );
}
