// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function ServerSettingsPage() {
  return <PageHeader title="Server settings" description="Not built yet." />;
}
