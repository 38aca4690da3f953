// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function UrlsPage() {
  return <PageHeader title="URLs" description="Not built yet." />;
}
