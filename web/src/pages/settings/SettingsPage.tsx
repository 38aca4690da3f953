// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function SettingsPage() {
  return <PageHeader title="Settings" description="Not built yet." />;
}
