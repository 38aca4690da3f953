// First run: creates the SUPERADMIN (POST /api/setup, which also signs them in).
import { setUp } from './auth-api';
import { AuthFrame } from './AuthFrame';
import { NewAccountForm } from './NewAccountForm';

export function SetupPage() {
  return (
    <AuthFrame
      title="Welcome to Chute"
      subtitle="Create the first account. It becomes the super administrator of this server."
    >
      <NewAccountForm submitLabel="Create the account" autoFocus send={setUp} />
    </AuthFrame>
  );
}
