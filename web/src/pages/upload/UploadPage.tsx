// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function UploadPage() {
  return <PageHeader title="Upload" description="Not built yet." />;
}
