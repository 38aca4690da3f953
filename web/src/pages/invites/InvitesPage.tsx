// PLACEHOLDER: replaced by the page's real implementation.
import { PageHeader } from '../../components/PageHeader';

export function InvitesPage() {
  return <PageHeader title="Invites" description="Not built yet." />;
}
